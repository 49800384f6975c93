#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackMedia
import PackModel

/// Conjecture masks are drawable and honest: closed, simple, non-degenerate polygons inside the frame, each with a
/// note and existing sources, for an era the scene has.
struct MaskRule: LintRule {
    static let notClosed = RuleCode("PT0601", .error, "a mask polygon is not closed (last point must repeat the first)")
    static let tooFewPoints = RuleCode("PT0602", .error, "a mask polygon has fewer than three distinct points")
    static let selfIntersecting = RuleCode("PT0603", .error, "a mask polygon crosses itself")
    static let degenerate = RuleCode("PT0604", .error, "a mask polygon has (almost) no area")
    static let emptyNote = RuleCode("PT0605", .error, "a mask region's note is blank")
    static let unknownSource = RuleCode("PT0606", .error, "a mask region cites a source the scene does not list")
    static let unknownEra = RuleCode("PT0607", .error, "a mask names an era year the scene does not have")
    static let duplicateRegion = RuleCode("PT0608", .error, "two regions of one era share an id")
    static let highCoverage = RuleCode("PT0609", .warning, "conjecture covers more of the frame than the pack allows")
    static let duplicateEra = RuleCode("PT0610", .error, "a mask lists the same era twice")
    static let codes = [notClosed, tooFewPoints, selfIntersecting, degenerate, emptyNote, unknownSource, unknownEra, duplicateRegion, highCoverage, duplicateEra]

    /// Polygons smaller than this share of the frame cannot be tapped on a phone.
    static let minimumArea = 1e-4

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let document = source.mask else { continue }
            let years = Set(source.eraItems.map(\.era.year))
            let sourceIDs = source.sourcesComplete ? Set(source.sourceItems.map(\.source.id)) : nil
            var seenYears = Set<Int>()
            for (e, era) in source.maskEras {
                if !seenYears.insert(era.year).inserted {
                    out.append(Self.duplicateEra.diagnostic("era \(era.year) is listed twice", at: document.location("/eras/\(e)/year"), hint: "merge its regions into one entry"))
                }
                if source.erasComplete, !years.contains(era.year) {
                    out.append(Self.unknownEra.diagnostic("scene.json has no era \(era.year)", at: document.location("/eras/\(e)/year"),
                                                          hint: "use one of: \(years.sorted().map(String.init).joined(separator: ", "))"))
                }
                var ids = Set<String>()
                var polygons: [Polygon] = []
                for (r, region) in era.regions.enumerated() {
                    let base = "/eras/\(e)/regions/\(r)"
                    if !ids.insert(region.id).inserted {
                        out.append(Self.duplicateRegion.diagnostic("region id \"\(region.id)\" is used twice in era \(era.year)", at: document.location(base + "/id"), hint: "rename one"))
                    }
                    if region.note.allSatisfy(\.isWhitespace) {
                        out.append(Self.emptyNote.diagnostic("region \"\(region.id)\" has a blank note", at: document.location(base + "/note"),
                                                             hint: "say why we are unsure; visitors read this when they tap the hatching"))
                    }
                    if let sourceIDs {
                        for (k, id) in region.sources.enumerated() where !sourceIDs.contains(id) {
                            out.append(Self.unknownSource.diagnostic("region \"\(region.id)\" cites \"\(id)\", which scene.json does not list",
                                                                     at: document.location(base + "/sources/\(k)"), hint: "add it to provenance.sources or fix the id"))
                        }
                    }
                    let polygon = Polygon(points: region.polygon.compactMap { $0.count == 2 ? Polygon.Point($0[0], $0[1]) : nil })
                    let at = document.location(base + "/polygon")
                    if !polygon.isClosed {
                        let hint = "repeat the first point [\(polygon.points.first.map { "\(format($0.x)), \(format($0.y))" } ?? "")] at the end"
                        // Only a ring whose first point is a real point can be closed by repeating it.
                        let fix = region.polygon.first?.count == 2 ? document.fix(appendingCopyOf: base + "/polygon/0", to: base + "/polygon", hint) : nil
                        out.append(Self.notClosed.diagnostic("region \"\(region.id)\" does not end where it starts", at: at, hint: hint, fix: fix))
                    }
                    if polygon.distinctVertexCount < 3 {
                        out.append(Self.tooFewPoints.diagnostic("region \"\(region.id)\" has \(polygon.distinctVertexCount) distinct points", at: at, hint: "a region needs at least three corners"))
                        continue
                    }
                    if let (i, j) = polygon.selfIntersection {
                        out.append(Self.selfIntersecting.diagnostic("region \"\(region.id)\": edge \(i + 1) crosses edge \(j + 1)", at: document.location(base + "/polygon/\(i)"),
                                                                    hint: "reorder the points so the outline does not cross itself"))
                    } else if polygon.area < Self.minimumArea {
                        out.append(Self.degenerate.diagnostic("region \"\(region.id)\" covers \(format(polygon.area * 100, digits: 3))% of the frame", at: at,
                                                              hint: "draw a region large enough to tap, or remove it"))
                    } else {
                        polygons.append(polygon)
                    }
                }
                let coverage = Polygon.coverage(of: polygons)
                context.conjectureCoverage[source.stop, default: [:]][String(era.year)] = (coverage * 1000).rounded() / 1000
                if coverage > context.limits.maxConjectureCoverage {
                    out.append(Self.highCoverage.diagnostic("era \(era.year): \(Int((coverage * 100).rounded()))% of the frame is hatched", at: document.location("/eras/\(e)"),
                                                            hint: "the limit is \(Int(context.limits.maxConjectureCoverage * 100))% (lint.maxConjectureCoverage); is this era ready to ship?"))
                }
            }
        }
        return out
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackLint
import PackMedia
import PackModel

/// What the preview shows of a pack, read through lint's context so the pages and `packtool lint` see the same
/// documents: stops in walking order, each with its plates, masks, story, sources, sign-off and findings. A section
/// that lint could not read is left out of its stop (and its finding says why), so a broken pack still previews.
public struct PreviewPack: Sendable {
    public var id: String
    public var title: String
    public var city: String
    public var language: String
    public var stops: [PreviewStop]
    /// Findings not inside any stop folder (pack.json, stray files at the top).
    public var packFindings: [Diagnostic]
    public var geofenceRadius: Double?
    public var freeStops: [String]

    /// Walking speed behind the route page's times: 4.5 km/h, an unhurried pace on the Royal Mile's slope and crowds.
    public static let walkingSpeed = 1.25

    /// Straight-line length of the route, metres.
    public var routeLength: Double { stops.compactMap(\.legFromPrevious).reduce(0, +) }
}

public struct PreviewStop: Sendable {
    /// 1-based position in the walk.
    public var number: Int
    /// The stop's folder name, and the name of its page.
    public var folder: String
    public var page: String
    public var title: String
    public var anchor: SceneDocument.Anchor?
    public var view: SceneDocument.View?
    /// The stop's own geofence radius, when its scene.json sets one (else the pack's applies).
    public var geofenceRadius: Double? = nil
    /// Distance and bearing from the anchor to the view's target, when both are known.
    public var targetDistance: Double?
    public var targetBearing: Double?
    /// Metres from the previous stop's anchor (nil for the first stop or without anchors).
    public var legFromPrevious: Double?
    public var portraitCrop: SceneDocument.NormalizedRect?
    public var eras: [PreviewEra]
    public var story: PreviewStory?
    public var sources: [SceneDocument.Source]
    public var credits: String?
    public var signoff: SignoffAssessment?
    public var findings: [Diagnostic]
    public var isFree: Bool

    public var errorCount: Int { findings.filter { $0.severity == .error }.count }
    public var warningCount: Int { findings.filter { $0.severity == .warning }.count }
}

public enum PlateCrop: String, CaseIterable, Sendable {
    case landscape = "16x9"
    case portrait = "9x16"

    public var label: String { self == .landscape ? "16:9" : "9:16" }
}

public struct PreviewEra: Sendable {
    public var year: Int
    public var label: String
    public var isDefault: Bool
    /// The plate files by crop, when they name a regular file inside the stop folder.
    public var plates: [PlateCrop: URL]
    public var sourceIDs: [String]
    /// Mask regions in 16:9 frame coordinates.
    public var regions: [UncertaintyDocument.Region]
}

public struct PreviewStory: Sendable {
    public var audio: URL?
    public var transcript: URL?
    public var language: String
    public var cues: [VTTCue]
    /// From the MP4 container, seconds.
    public var duration: Double?
    /// Where lint hears the voice (seconds), when it could judge the audio: drawn under the transcript so an author
    /// sees where cues and voice disagree.
    public var voice: [VoiceActivity.Segment]? = nil
}

extension PreviewPack {
    /// Reads the pack at `context.root` with the findings lint made of it.
    public init(context: LintContext, diagnostics: [Diagnostic]) {
        let pack = context.pack
        id = pack?.decode(String.self, at: "/id") ?? context.root.lastPathComponent
        title = pack?.decode(String.self, at: "/title") ?? id
        city = pack?.decode(String.self, at: "/city") ?? ""
        language = context.packLanguage ?? "en"
        geofenceRadius = context.packGeofenceRadius
        freeStops = context.packAccess?.freeStops ?? []
        // Walking order: the route as pack.json gives it, then any stop folders it leaves out.
        let byFolder = Dictionary(context.scenes.map { ($0.stop, $0) }, uniquingKeysWith: { first, _ in first })
        var order = (context.packRoute ?? []).filter { byFolder[$0] != nil }
        var seen = Set<String>()
        order = order.filter { seen.insert($0).inserted }
        order += context.scenes.map(\.stop).filter { !seen.contains($0) }
        var pages = Set<String>()
        var stops: [PreviewStop] = []
        var claimed = Set<Int>()
        for (i, folder) in order.enumerated() {
            guard let source = byFolder[folder] else { continue }
            var page = Self.pageName(folder, number: i + 1)
            if !pages.insert(page).inserted { page = "stop-\(i + 1).html"; pages.insert(page) }
            let prefix = source.path + "/"
            let found = diagnostics.enumerated().filter { $0.element.location.file.hasPrefix(prefix) || $0.element.location.file == source.path }
            claimed.formUnion(found.map(\.offset))
            var stop = PreviewStop.read(source, number: i + 1, page: page, context: context, findings: found.map(\.element))
            stop.isFree = freeStops.contains(folder)
            if let previous = stops.last?.anchor, let here = stop.anchor {
                stop.legFromPrevious = Geodesy.distance(fromLat: previous.lat, lon: previous.lon, toLat: here.lat, lon: here.lon)
            }
            stops.append(stop)
        }
        self.stops = stops
        packFindings = diagnostics.enumerated().filter { !claimed.contains($0.offset) }.map(\.element)
    }

    /// `01-castle-esplanade.html` for a portable folder name; a numbered name otherwise, so no authored name can reach
    /// outside the site or break a link.
    static func pageName(_ folder: String, number: Int) -> String {
        let portable = !folder.isEmpty && folder.count <= 100 && !folder.hasPrefix(".")
            && folder.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "." }
        return portable ? folder + ".html" : "stop-\(number).html"
    }
}

extension PreviewStop {
    /// When provenance as a whole does not meet the schema, each source that does on its own, so one broken source
    /// does not hide every licence of the stop.
    static func readableSources(_ source: SceneSource) -> [SceneDocument.Source] {
        let count = source.scene?.root?.node(at: "/provenance/sources")?.array?.count ?? 0
        return (0..<count).compactMap { source.scene?.decode(SceneDocument.Source.self, at: "/provenance/sources/\($0)") }
    }

    static func read(_ source: SceneSource, number: Int, page: String, context: LintContext, findings: [Diagnostic]) -> PreviewStop {
        let eras = source.eraItems.map(\.era).map { era -> PreviewEra in
            var plates: [PlateCrop: URL] = [:]
            for crop in PlateCrop.allCases {
                let path = crop == .landscape ? era.layers.landscape : era.layers.portrait
                if let url = SafeFile.inside(source.url, path) { plates[crop] = url }
            }
            let regions = source.maskEras.first { $0.era.year == era.year }?.era.regions ?? []
            return PreviewEra(year: era.year, label: era.label, isDefault: era.default == true, plates: plates, sourceIDs: era.sources, regions: regions)
        }
        var story: PreviewStory?
        if let s = source.story {
            // Only a story the app could play gets a player: AAC audio with a duration, as lint checks it.
            let audio = SafeFile.inside(source.url, s.audio).flatMap { url in
                context.audio(url).map { $0.isAAC && $0.duration != nil } == true ? url : nil
            }
            let transcript = SafeFile.inside(source.url, s.transcript)
            let vtt = transcript.flatMap { context.vtt($0) }
            let heard = audio.flatMap { try? context.voice($0)?.get() }
            story = PreviewStory(audio: audio, transcript: transcript, language: s.language,
                                 cues: vtt?.isWebVTT == true ? vtt!.cues : [], duration: audio.flatMap { context.audio($0)?.duration },
                                 voice: heard?.verdict == .speech ? heard?.segments : nil)
        }
        var targetDistance: Double?, targetBearing: Double?
        if let a = source.anchor, let t = source.view?.target {
            targetDistance = Geodesy.distance(fromLat: a.lat, lon: a.lon, toLat: t.lat, lon: t.lon)
            targetBearing = Geodesy.initialBearing(fromLat: a.lat, lon: a.lon, toLat: t.lat, lon: t.lon)
        }
        var stop = PreviewStop(number: number, folder: source.stop, page: page, title: source.scene?.decode(String.self, at: "/title") ?? source.stop,
                           anchor: source.anchor, view: source.view, targetDistance: targetDistance, targetBearing: targetBearing,
                           legFromPrevious: nil, portraitCrop: source.crops?.portrait, eras: eras, story: story,
                           sources: source.provenance?.sources ?? Self.readableSources(source), credits: source.provenance?.credits,
                           signoff: SignoffAssessment.of(source, in: context), findings: findings, isFree: false)
        stop.geofenceRadius = source.geofenceRadius
        return stop
    }
}

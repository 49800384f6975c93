import PackModel

/// Eras are distinct, in order, in the past, with exactly one shown first; each cites sources the scene lists, and
/// plates follow the `layers/<year>-16x9.heic` naming so people can find them.
struct ErasRule: LintRule {
    static let duplicateYear = RuleCode("PT0301", .error, "two eras of a scene have the same year")
    static let notAscending = RuleCode("PT0302", .error, "eras are not in ascending year order")
    static let futureYear = RuleCode("PT0303", .error, "an era's year is in the future")
    static let defaultEra = RuleCode("PT0304", .error, "a scene does not have exactly one default era")
    static let unknownSource = RuleCode("PT0308", .error, "an era cites a source id that provenance does not list")
    static let plateName = RuleCode("PT0309", .warning, "a plate's file name does not follow layers/<year>-16x9.heic or -9x16.heic")
    static let plateReused = RuleCode("PT0310", .warning, "the same plate file is used for two layers")
    static let codes = [duplicateYear, notAscending, futureYear, defaultEra, unknownSource, plateName, plateReused]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            // Each era that could be read is checked, whatever is wrong with another.
            let eras = source.eraItems
            guard !eras.isEmpty else { continue }
            // Citations are checked only when every source could be read; otherwise a citation could look unknown.
            let sourceIDs = source.sourcesComplete ? Set(source.sourceItems.map(\.source.id)) : nil
            var seenYears: [Int: Int] = [:]
            var seenPlates: [String: String] = [:]
            for (n, (i, era)) in eras.enumerated() {
                if let first = seenYears[era.year] {
                    out.append(Self.duplicateYear.diagnostic("era \(i) repeats the year \(era.year) of era \(first)", at: source.location("/eras/\(i)/year"),
                                                             hint: "merge the two eras or correct one year"))
                } else {
                    seenYears[era.year] = i
                }
                if n > 0, era.year < eras[n - 1].era.year {
                    out.append(Self.notAscending.diagnostic("era \(era.year) comes after \(eras[n - 1].era.year)", at: source.location("/eras/\(i)/year"),
                                                            hint: "list eras from oldest to newest; the app's era slider follows this order"))
                }
                if era.year > context.currentYear {
                    out.append(Self.futureYear.diagnostic("era year \(era.year) is in the future", at: source.location("/eras/\(i)/year"),
                                                          hint: "use the year the reconstruction depicts"))
                }
                for (j, id) in era.sources.enumerated() where sourceIDs.map({ !$0.contains(id) }) ?? false {
                    out.append(Self.unknownSource.diagnostic("era \(era.year) cites \"\(id)\", which provenance.sources does not list",
                                                             at: source.location("/eras/\(i)/sources/\(j)"), hint: "add the source to provenance.sources or fix the id"))
                }
                for (path, crop, key) in [(era.layers.landscape, "16x9", "16x9"), (era.layers.portrait, "9x16", "9x16")] {
                    let pointer = "/eras/\(i)/layers/\(key)"
                    if path != "layers/\(era.year)-\(crop).heic" {
                        out.append(Self.plateName.diagnostic("\"\(path)\" is not named layers/\(era.year)-\(crop).heic", at: source.location(pointer),
                                                             hint: "rename the plate so crops and years are easy to find"))
                    }
                    if let other = seenPlates[path] {
                        out.append(Self.plateReused.diagnostic("\"\(path)\" is also used at \(other)", at: source.location(pointer),
                                                               hint: "each era and crop needs its own plate"))
                    } else {
                        seenPlates[path] = pointer
                    }
                }
            }
            // One default among all the eras: known only when all could be read.
            let defaults = eras.filter { $0.era.default == true }.map(\.index)
            if source.erasComplete, defaults.count != 1 {
                let at = defaults.count > 1 ? source.location("/eras/\(defaults[1])/default") : source.location("/eras")
                out.append(Self.defaultEra.diagnostic("\(defaults.count) eras are marked default", at: at,
                                                      hint: "mark exactly one era \"default\": true; the app opens the scene on it"))
            }
        }
        return out
    }
}

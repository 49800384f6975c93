import PackModel

/// Every source uses a known rights vocabulary; a source whose pixels or words ship (`use: embedded`) must permit
/// redistribution — public domain mark, CC0, CC BY, CC BY-SA, NoC-US, or a recorded written licence.
struct ProvenanceRule: LintRule {
    static let unknownRights = RuleCode("PT0401", .error, "a source's rights are not an SPDX id, Creative Commons URI or rightsstatements.org URI")
    static let notRedistributable = RuleCode("PT0402", .error, "an embedded source's rights do not permit redistribution")
    static let deprecated = RuleCode("PT0403", .error, "a source uses a deprecated licence identifier")
    static let unused = RuleCode("PT0404", .warning, "a source is listed but no era or mask region cites it")
    static let duplicateID = RuleCode("PT0405", .error, "two sources of a scene share an id")
    static let insecureURL = RuleCode("PT0406", .warning, "a source's URL uses http instead of https")
    static let codes = [unknownRights, notRedistributable, deprecated, unused, duplicateID, insecureURL]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            // Each source that could be read is checked. Without every era and mask read, which sources are cited
            // cannot be known: no source is called unused then.
            var cited = Set(source.eraItems.flatMap(\.era.sources))
            for (_, era) in source.maskEras { for region in era.regions { cited.formUnion(region.sources) } }
            var seen = Set<String>()
            for (i, s) in source.sourceItems {
                let base = "/provenance/sources/\(i)"
                if !seen.insert(s.id).inserted {
                    out.append(Self.duplicateID.diagnostic("source id \"\(s.id)\" is used twice", at: source.location(base + "/id"), hint: "give each source its own id"))
                }
                switch RightsVocabulary.classify(s.rights) {
                case .unknown:
                    let near = RightsVocabulary.suggestion(for: s.rights)
                    out.append(Self.unknownRights.diagnostic("\"\(s.rights)\" is not a known rights identifier", at: source.location(base + "/rights"),
                                                             hint: (near.map { $0.hint + " " } ?? "") + "use an SPDX id (CC-BY-4.0), a Creative Commons URI (https://creativecommons.org/licenses/by/4.0/) or a rightsstatements.org URI (http://rightsstatements.org/vocab/InC/1.0/)",
                                                             fix: near.flatMap { source.fix(replacing: base + "/rights", with: $0.replacement, $0.hint) }))
                case .deprecated(let id, let replacement):
                    out.append(Self.deprecated.diagnostic("\"\(id)\" is deprecated", at: source.location(base + "/rights"), hint: "use \(replacement)"))
                case .restricted(let name) where s.use == .embedded:
                    out.append(Self.notRedistributable.diagnostic("\"\(s.title)\" is embedded but its rights (\(name)) do not permit redistribution",
                                                                  at: source.location(base + "/rights"),
                                                                  hint: "use it as reference or derived only, find a copy under PDM, CC0, CC BY or CC BY-SA, or record a written licence as LicenseRef-…"))
                default:
                    break
                }
                if s.url.hasPrefix("http://") {
                    out.append(Self.insecureURL.diagnostic("\(s.url) uses http", at: source.location(base + "/url"), hint: "use the https address of the record"))
                }
                if source.erasComplete, source.maskComplete, !cited.contains(s.id) {
                    out.append(Self.unused.diagnostic("source \"\(s.id)\" is not cited by any era or mask region", at: source.location(base + "/id"),
                                                      hint: "cite it where it was used, or remove it"))
                }
            }
        }
        return out
    }
}

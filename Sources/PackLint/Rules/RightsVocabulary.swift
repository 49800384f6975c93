#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackFiles
import PackMedia

/// The rights vocabularies a source's `rights` may use — SPDX ids, Creative Commons URIs and rightsstatements.org
/// URIs — and which of them permit shipping the source's own pixels or words (`use: embedded`).
enum RightsVocabulary {
    enum Verdict: Equatable {
        /// Known, and allows redistribution in a commercial app (with attribution where the licence asks).
        case redistributable(String)
        /// Known, but does not allow redistribution in the app.
        case restricted(String)
        /// Deprecated identifier that must not be used.
        case deprecated(String, replacement: String)
        case unknown
    }

    /// The 12 rightsstatements.org statements (canonical form http://rightsstatements.org/vocab/<ID>/1.0/).
    static let rightsStatements = ["InC", "InC-OW-EU", "InC-EDU", "InC-NC", "InC-RUU", "NoC-CR", "NoC-NC", "NoC-OKLR", "NoC-US", "CNE", "UND", "NKC"]
    static let ccLicences = ["by", "by-sa", "by-nc", "by-nc-sa", "by-nd", "by-nc-nd"]
    static let ccVersions = ["1.0", "2.0", "2.5", "3.0", "4.0"]

    /// Every identifier `classify` knows (besides `LicenseRef-…`), for a did-you-mean: the SPDX ids, then the
    /// Creative Commons and rightsstatements.org URIs.
    static let identifiers: [String] = {
        var ids = ["CC0-1.0", "CC-PDM-1.0", "OGL-UK-3.0"]
        for licence in ccLicences { for version in ccVersions { ids.append("CC-\(licence.uppercased())-\(version)") } }
        ids += ["https://creativecommons.org/publicdomain/zero/1.0/", "https://creativecommons.org/publicdomain/mark/1.0/"]
        for licence in ccLicences { for version in ccVersions { ids.append("https://creativecommons.org/licenses/\(licence)/\(version)/") } }
        return ids + rightsStatements.map { "http://rightsstatements.org/vocab/\($0)/1.0/" }
    }()

    /// The known identifier `rights` spells in another way, as a hint ("did you mean "CC-BY-4.0"?") and the fix, or
    /// nil. Only a spelling of the *same* licence counts — the same words and version, case, spaces, punctuation and
    /// an http(s):// or www. prefix aside ("CC BY 4.0", "cc-by-4.0", "creativecommons.org/licenses/by/4.0"): a
    /// nearest match by edit distance would turn "CC BY-SA" into CC-BY-1.0 or "CC BY-SA 2.0 UK" into CC-BY-SA-2.0,
    /// changing the terms a source was licensed under.
    static func suggestion(for rights: String) -> ValueFixes.Fix? {
        let key = spelling(rights)
        guard !key.isEmpty, let match = identifiers.first(where: { spelling($0) == key }), match != rights else { return nil }
        return ValueFixes.Fix(hint: Suggest.didYouMean(match), replacement: JSONNode.quoted(match))
    }

    /// A licence's words and version alone: lower case, letters and digits, without a scheme or www., and a
    /// version's ".0" left out (version 4 is 4.0).
    static func spelling(_ text: String) -> String {
        var t = text.lowercased()
        for prefix in ["https://", "http://"] where t.hasPrefix(prefix) { t.removeFirst(prefix.count) }
        if t.hasPrefix("www.") { t.removeFirst(4) }
        let scalars = Array(t.unicodeScalars)
        var out = ""
        var i = 0
        while i < scalars.count {
            let c = scalars[i]
            let isDigit = ("0"..."9").contains(c)
            if isDigit || ("a"..."z").contains(c) { out.unicodeScalars.append(c) }
            // "4.0" followed by anything but a digit is "4".
            if isDigit, i + 2 < scalars.count, scalars[i + 1] == ".", scalars[i + 2] == "0",
               i + 3 == scalars.count || !("0"..."9").contains(scalars[i + 3]) {
                i += 3
                continue
            }
            i += 1
        }
        return out
    }

    static func classify(_ rights: String) -> Verdict {
        if rights.hasPrefix("LicenseRef-") {
            return rights.count > "LicenseRef-".count ? .redistributable("a recorded written licence (\(rights))") : .unknown
        }
        if rights == "CC-PDDC" { return .deprecated(rights, replacement: "CC-PDM-1.0 or https://creativecommons.org/publicdomain/mark/1.0/") }
        if let spdx = spdx(rights) { return spdx }
        if let cc = creativeCommons(rights) { return cc }
        for id in rightsStatements where rights == "http://rightsstatements.org/vocab/\(id)/1.0/" {
            return id == "NoC-US" ? .redistributable("No Copyright - United States") : .restricted("rightsstatements.org \(id)")
        }
        return .unknown
    }

    private static func spdx(_ id: String) -> Verdict? {
        switch id {
        case "CC0-1.0": return .redistributable("CC0 1.0")
        case "CC-PDM-1.0": return .redistributable("Public Domain Mark 1.0")
        case "OGL-UK-3.0": return .restricted("Open Government Licence v3.0 (not on the embedded list; record a written licence)")
        default: break
        }
        for licence in ccLicences {
            for version in ccVersions where id == "CC-\(licence.uppercased())-\(version)" {
                return verdict(licence: licence, label: id)
            }
        }
        return nil
    }

    private static func creativeCommons(_ uri: String) -> Verdict? {
        guard let url = URL(string: uri), url.host == "creativecommons.org", ["http", "https"].contains(url.scheme ?? ""), uri.hasSuffix("/") else { return nil }
        let parts = PathParts.split(url.path, omittingEmpty: true)
        if parts == ["publicdomain", "zero", "1.0"] { return .redistributable("CC0 1.0") }
        if parts == ["publicdomain", "mark", "1.0"] { return .redistributable("Public Domain Mark 1.0") }
        // licenses/<kind>/<version>/ with an optional jurisdiction port, e.g. licenses/by-nc-sa/2.5/scotland/.
        guard parts.count >= 3, parts.count <= 4, parts[0] == "licenses", ccLicences.contains(parts[1]), ccVersions.contains(parts[2]) else { return nil }
        return verdict(licence: parts[1], label: "CC \(parts[1].uppercased()) \(parts[2])" + (parts.count == 4 ? " \(parts[3])" : ""))
    }

    private static func verdict(licence: String, label: String) -> Verdict {
        licence == "by" || licence == "by-sa" ? .redistributable(label) : .restricted(label)
    }
}

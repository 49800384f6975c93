#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// Each scene carries at least one valid sign-off by a `historian` reviewer listed in pack.json, over the scene's
/// current content digest (the folder without signoff.json). A sign-off over an older digest is reported as stale,
/// naming the files that changed when the publisher's ledger can tell (otherwise the two digests).
struct SignoffRule: LintRule {
    static let missing = RuleCode("PT0501", .error, "no valid historian sign-off covers the scene's current content")
    static let stale = RuleCode("PT0502", .warning, "a sign-off covers an earlier state of the scene")
    static let invalid = RuleCode("PT0503", .error, "a sign-off's signature does not verify against its reviewer's key in pack.json")
    static let unreadable = RuleCode("PT0504", .error, "an envelope in signoff.json does not carry a sign-off")
    static let wrongScene = RuleCode("PT0505", .error, "a sign-off names another scene")
    static let codes = [missing, stale, invalid, unreadable, wrongScene]

    func check(_ context: LintContext) -> [Diagnostic] {
        guard let packReviewers = context.packReviewers else { return [] }
        let reviewers: [String: (PackDocument.Reviewer, Ed25519PublicKey)] = Dictionary(packReviewers.compactMap { r in
            guard let raw = Hex.decode(r.publicKey), let key = try? Ed25519PublicKey(rawRepresentation: raw) else { return nil }
            return (r.id, (r, key))
        }, uniquingKeysWith: { first, _ in first })
        var out: [Diagnostic] = []
        for source in context.scenes {
            let hint = "after a historian has reviewed the scene: packtool review sign \(source.path) --key KEY --reviewer ID"
            guard let document = source.signoff else {
                out.append(Self.missing.diagnostic("\(source.path) has no signoff.json", at: .init(file: source.path), hint: hint))
                continue
            }
            guard let envelopes = document.decode([DSSEEnvelope].self) else { continue }  // StructureRule reported why.
            let digest: TreeDigest
            do { digest = try context.contentDigest(source) } catch {
                out.append(Self.missing.diagnostic("cannot compute the content digest: \(error)", at: .init(file: source.path), hint: "make every file readable"))
                continue
            }
            var current = false
            for (i, envelope) in envelopes.enumerated() {
                let at = document.location("/\(i)")
                guard let signoff = try? Signoff.decode(from: envelope) else {
                    out.append(Self.unreadable.diagnostic("envelope \(i) is not a sign-off payload", at: at, hint: "signoff.json is written by packtool review sign; remove this entry"))
                    continue
                }
                guard let (reviewer, key) = reviewers[signoff.reviewer], envelope.verifiedKeyIDs(trusting: [key]).contains(key.keyID) else {
                    out.append(Self.invalid.diagnostic("the sign-off by \"\(signoff.reviewer)\" does not verify against a reviewer key in pack.json", at: at,
                                                       hint: "check the reviewer's id and key in pack.json, then sign again"))
                    continue
                }
                if signoff.scene != source.stop {
                    out.append(Self.wrongScene.diagnostic("the sign-off by \"\(reviewer.id)\" is for scene \"\(signoff.scene)\", not \"\(source.stop)\"", at: at,
                                                          hint: "a sign-off copied from another scene does not count; sign this scene"))
                } else if signoff.digest != digest.prefixed {
                    let changes = signoff.files.map { files in
                        digest.changes(since: files.map { TreeDigest.Entry(path: $0.path, size: 0, sha256: $0.sha256) })
                    }
                    let what = changes.map(Self.describe) ?? "the scene is now \(digest.prefixed), it covers \(signoff.digest)"
                    out.append(Self.stale.diagnostic("the sign-off by \"\(reviewer.id)\" (\(signoff.signedAt)) covers an earlier state; \(what)",
                                                     at: at, hint: "have the changes reviewed, then sign again"))
                } else if reviewer.role == "historian" {
                    current = true
                }
            }
            if !current {
                out.append(Self.missing.diagnostic("no valid historian sign-off covers the current content of \(source.path)", at: .init(file: document.path), hint: hint))
            }
        }
        return out
    }

    /// "changed since: scene.json; removed since: story.m4a; added since: notes.txt" — the parts that apply.
    static func describe(_ changes: TreeDigest.Changes) -> String {
        let parts = [("changed", changes.changed), ("removed", changes.removed), ("added", changes.added)]
            .filter { !$0.1.isEmpty }
            .map { "\($0.0) since: \(list($0.1))" }
        return parts.isEmpty ? "its file listing differs" : parts.joined(separator: "; ")
    }

    /// "a, b and 3 more".
    static func list(_ paths: [String]) -> String {
        paths.count <= 6 ? paths.joined(separator: ", ") : paths.prefix(5).joined(separator: ", ") + " and \(paths.count - 5) more"
    }
}

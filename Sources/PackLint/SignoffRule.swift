import Foundation
import PackCrypto
import PackModel

/// Each scene carries at least one valid sign-off by a `historian` reviewer listed in pack.json, over the scene's
/// current content digest. A sign-off over an older digest is reported as stale.
struct SignoffRule: LintRule {
    static let missing = RuleCode("PT0030", .error, "no valid historian sign-off covers the scene's current content")
    static let stale = RuleCode("PT0031", .warning, "a sign-off covers an earlier state of the scene")
    static let invalid = RuleCode("PT0032", .error, "a sign-off's signature does not verify against a listed reviewer key")
    static let unreadable = RuleCode("PT0033", .error, "signoff.json is not a JSON array of DSSE envelopes carrying sign-offs")
    static let codes = [missing, stale, invalid, unreadable]

    func check(_ context: LintContext) -> [Diagnostic] {
        guard let pack = context.pack else { return [] }
        let reviewers = pack.reviewers.compactMap { r -> (PackDocument.Reviewer, Ed25519PublicKey)? in
            guard let raw = Hex.decode(r.publicKey), let key = try? Ed25519PublicKey(rawRepresentation: raw) else { return nil }
            return (r, key)
        }
        var out: [Diagnostic] = []
        for (stop, _) in context.scenes {
            let folder = context.sceneURL(stop)
            let fileURL = folder.appendingPathComponent(PackFolder.signoffFile)
            let file = context.display(fileURL)
            let hint = "ask a historian to review the scene, then run `packtool review sign \(context.display(folder)) --key KEY --reviewer ID`"
            guard FileManager.default.fileExists(atPath: fileURL.path) else {
                out.append(Self.missing.diagnostic("stops/\(stop)/ has no signoff.json", at: .init(file: context.display(folder)), hint: hint))
                continue
            }
            let digest: TreeDigest
            do { digest = try PackFolder.contentDigest(ofScene: folder) } catch {
                out.append(Self.missing.diagnostic("cannot compute the content digest of stops/\(stop)/: \(error)",
                                                   at: .init(file: context.display(folder)), hint: "make every file in the scene folder readable"))
                continue
            }
            let envelopes: [DSSEEnvelope]
            do { envelopes = try DocumentLoader.loadSignoffs(from: fileURL) } catch {
                out.append(Self.unreadable.diagnostic("\(error)", at: .init(file: file), hint: "regenerate it with `packtool review sign`"))
                continue
            }
            var current = false
            for (index, envelope) in envelopes.enumerated() {
                let at = Diagnostic.Location(file: file, pointer: "/\(index)")
                guard let signoff = try? Signoff.decode(from: envelope) else {
                    out.append(Self.unreadable.diagnostic("envelope \(index) does not carry a sign-off", at: at, hint: "remove it"))
                    continue
                }
                guard let (reviewer, key) = reviewers.first(where: { $0.0.id == signoff.reviewer }),
                      envelope.verifiedKeyIDs(trusting: [key]).contains(key.keyID) else {
                    out.append(Self.invalid.diagnostic("sign-off by \"\(signoff.reviewer)\" does not verify against a reviewer key in pack.json",
                                                       at: at, hint: "check the reviewer id and key in pack.json, then sign again"))
                    continue
                }
                if signoff.digest != digest.prefixed || signoff.scene != stop {
                    out.append(Self.stale.diagnostic("sign-off by \"\(reviewer.id)\" covers \(signoff.digest), but the scene is now \(digest.prefixed)",
                                                     at: at, hint: "have the scene reviewed again and re-sign it"))
                } else if reviewer.role == "historian" && signoff.role == "historian" {
                    current = true
                }
            }
            if !current {
                out.append(Self.missing.diagnostic("no valid historian sign-off covers the current content of stops/\(stop)/",
                                                   at: .init(file: file), hint: hint))
            }
        }
        return out
    }
}

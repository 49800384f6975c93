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
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let assessment = SignoffAssessment.of(source, in: context) else { return [] }  // pack.json's reviewers unreadable
            let hint = "after a historian has reviewed the scene: packtool review sign \(source.path) --reviewer-key KEY.pem --reviewer ID"
            switch assessment.outcome {
            case .missing:
                out.append(Self.missing.diagnostic("\(source.path) has no signoff.json", at: .init(file: source.path), hint: hint))
                continue
            case .malformed:
                continue  // StructureRule reported why.
            case .undigestable(let error):
                out.append(Self.missing.diagnostic("cannot compute the content digest: \(error)", at: .init(file: source.path), hint: "make every file readable"))
                continue
            case .assessed(let entries):
                guard let document = source.signoff else { continue }
                for entry in entries {
                    let at = document.location("/\(entry.index)")
                    let who = entry.reviewer?.id ?? entry.signoff?.reviewer ?? ""
                    switch entry.state {
                    case .current:
                        break
                    case .unreadable:
                        out.append(Self.unreadable.diagnostic("envelope \(entry.index) is not a sign-off payload", at: at,
                                                              hint: "signoff.json is written by packtool review sign; remove this entry"))
                    case .invalid:
                        out.append(Self.invalid.diagnostic("the sign-off by \"\(who)\" does not verify against a reviewer key in pack.json", at: at,
                                                           hint: "check the reviewer's id and key in pack.json, then sign again"))
                    case .wrongScene(let scene):
                        out.append(Self.wrongScene.diagnostic("the sign-off by \"\(who)\" is for scene \"\(scene)\", not \"\(source.stop)\"", at: at,
                                                              hint: "a sign-off copied from another scene does not count; sign this scene"))
                    case .stale(let changes):
                        out.append(Self.stale.diagnostic("the sign-off by \"\(who)\" (\(entry.signoff?.signedAt ?? "")) covers an earlier state; \(changes)",
                                                         at: at, hint: "have the changes reviewed, then sign again"))
                    }
                }
                if !assessment.isCurrent {
                    out.append(Self.missing.diagnostic("no valid historian sign-off covers the current content of \(source.path)", at: .init(file: document.path), hint: hint))
                }
            }
        }
        return out
    }
}

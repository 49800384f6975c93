#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// An index names every file where the published layout puts it (`IndexLayout`, under every profile); it is trusted
/// only under a root that has not expired, only while it has not expired itself (an index that
/// stopped updating is a frozen mirror), only if its creation time is not far ahead of the clock (it becomes the
/// clock's floor), and — for a client — never below the versions already seen or installed.
extension IndexDocument: Admissible {
    public static var kind: DocumentKind { .index }

    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult {
        var checks: [() -> PolicyResult] = packs.sorted { $0.key < $1.key }.map { pack, entry in { IndexLayout.evaluate(entry, pack: pack) } }
        if let binding = revocations { checks.append { IndexLayout.evaluate(binding) } }
        if profile.judgesTimes {
            checks += [
                // The root it is trusted under must not have expired (its version floor was judged when it came in).
                { Expiry(now: context.now).evaluate(expires: context.root.expires, what: "root version \(context.root.version)") },
                {
                    guard let created = Timestamp.parse(created) else { return .fails(VerificationFailure(.expiry, "the index has no valid creation time")) }
                    return ClockSkew(now: context.now).evaluate(signed: created.timeIntervalSince1970, what: "the index's creation time")
                },
                { Expiry(now: context.now).evaluate(expires: expires, what: "the index", hint: "; the mirror may be frozen") },
            ]
        }
        if profile.judgesFloors {
            let rollback = Rollback(floors: context.floors)
            checks.append { rollback.evaluate(index: .init(version: version, packs: packs.mapValues(\.version))) }
            if let binding = revocations {
                checks.append { rollback.evaluate(revocations: binding.version, what: "the revocation list the index binds") }
            }
        }
        return .first(checks)
    }
}

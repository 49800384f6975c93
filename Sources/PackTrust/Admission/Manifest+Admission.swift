#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// A manifest's ids become folder names, its paths file names, its Trip Pass hours seconds and dates, and its
/// creation time a floor on the client's clock: each is refused here, under every profile, before anything uses it,
/// so `packtool verify` and `packtool access` refuse exactly what an install refuses.
extension Manifest: Admissible {
    public static var kind: DocumentKind { .manifest }

    /// The name under which an install keeps its signed manifest beside the files; no listed file may take it.
    public static let installedFileName = ".manifest.json"

    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult {
        let what = "the manifest of \(pack) version \(version)"
        var checks: [() -> PolicyResult] = [
            // Pack and scene ids become folder and file names: even a signed manifest may only use plain slugs.
            { Identifiers.evaluate(pack, what: "pack id") },
            { .first(scenes.map { scene in { Identifiers.evaluate(scene.id, what: "scene id") } }) },
            // stops/ holds the links to scene folders; a pack-level file there would collide with them.
            { .check(!files.contains { $0.path == "stops" || $0.path.hasPrefix("stops/") }, .identifier, "the manifest lists a pack-level file under stops/") },
            { .check(!files.contains { $0.path == Self.installedFileName }, .identifier,
                     "the manifest lists a pack-level file named \(Self.installedFileName), which the installer keeps for the signed manifest") },
            // A Trip Pass length that would overflow when turned into seconds or dates.
            { access.products.tripPass.map { TripPassLength(hours: $0.hours).evaluate() } ?? .meets },
            // Every listed path must be safe to write (no traversal, backslash, case or Unicode twins).
            {
                var safety = PathSafety()
                do { for (path, _) in archiveEntries { try safety.admit(path) } } catch let failure as VerificationFailure {
                    return .fails(failure)
                } catch {
                    return .fails(VerificationFailure(.path, "\(error)"))
                }
                return .meets
            },
        ]
        if profile.judgesTimes {
            checks += [
                // Its creation time becomes a lower bound on the clock at install, so it may not lie far ahead.
                {
                    guard let created = Timestamp.parse(created) else { return .fails(VerificationFailure(.expiry, "\(what) has no valid creation time")) }
                    return ClockSkew(now: context.now).evaluate(signed: created.timeIntervalSince1970, what: "the creation time of \(pack) version \(version)")
                },
                { Expiry(now: context.now).evaluate(expires: expires, what: what) },
            ]
        }
        if profile.judgesFloors {
            checks.append { Rollback(floors: context.floors).evaluate(pack: pack, version: version, scenes: scenes.map { ($0.id, $0.version) }) }
        }
        return .first(checks)
    }
}

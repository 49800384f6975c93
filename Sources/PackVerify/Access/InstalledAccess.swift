#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackModel

/// Access decisions for an installed pack: the policy comes from the installed, signature-checked manifest, and the
/// time from the clock guard, whose state is persisted so a clock set back is noticed on the next decision.
public struct InstalledAccess {
    /// The client's state folder, opened once (shared with the `PackClient` that made this value).
    let store: StateStore
    /// The client's state folder.
    public var state: URL { store.url }
    /// The install folders, each opened once (shared with the `PackClient` that made this value).
    let roots: InstallRoots
    /// The clock guard (its offline limit); the default closes timed access after 14 days without a fresh index.
    public var clock = ClockGuard()
    /// Where the clocks are read; the system's by default, replaced in tests.
    public var reading: () -> ClockGuard.Reading = ClockGuard.Reading.system

    /// Decisions against the client state in `state`.
    package init(state: URL) {
        store = StateStore(state)
        roots = InstallRoots()
    }

    /// The same, in the session's state folder.
    init(store: StateStore, roots: InstallRoots) {
        self.store = store
        self.roots = roots
    }

    /// Whether `request` may open its scene of `pack` as installed in `into`. A decision never waits for an install in
    /// progress; the clock reading is saved when no install holds the state.
    /// - Throws: `VerificationFailure` `identifier` (a malformed pack id), `request` (a malformed request),
    ///   `state-missing`, `installed-missing`, `scene` (the pack has no such scene). A closed scene is not an error: it
    ///   is the decision.
    public func decide(into: URL, pack: String, request: AccessRequest) throws -> AccessDecision {
        try Identifiers.evaluate(pack, what: "pack id").require()
        try request.validate()
        // The clock reading is saved only when no install or update holds the state: a decision never waits for one
        // (that install saves the state itself when it ends). Held from the load to the save, so a save can never
        // carry back a state an install has since replaced.
        let lock = try store.attemptLock()
        defer { lock?.release() }
        var client = try store.load()
        guard let manifest = try InstallLayout.installedManifest(into: into, pack: pack, root: client.root, roots: roots)?.manifest else {
            throw VerificationFailure(.installedMissing, "\(pack) is not installed in \(into.path)")
        }
        // A scene the pack does not have is the app's mistake (a stale id, a typo): "closed" would put a paywall in
        // front of a stop that does not exist.
        guard manifest.scenes.contains(where: { $0.id == request.scene }) else {
            throw VerificationFailure(.scene, "\(manifest.pack) version \(manifest.version) has no scene \"\(request.scene)\"")
        }
        let verdict = clock.observe(reading(), state: &client.clock)
        if lock != nil { try store.save(client) }
        return AccessDecider(policy: manifest.access, root: client.root, revocations: client.revocations).decide(request, clock: verdict)
    }
}

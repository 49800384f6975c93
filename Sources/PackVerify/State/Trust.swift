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

/// The client's trust operations on its persisted state: pin the first root, follow root rotations, and accept
/// signed indexes — each refusing rollback, expiry and the wrong signers, and changing nothing when it refuses.
public struct Trust {
    /// The client's state folder, opened once (shared with the `PackClient` that made this value).
    let store: StateStore
    /// The client's state folder.
    public var state: URL { store.url }
    /// The clock guard that judges signed times.
    public var clock = ClockGuard()
    /// Where the clocks are read; the system's by default, replaced in tests.
    public var reading: () -> ClockGuard.Reading = ClockGuard.Reading.system

    /// Trust operations on the client state in `state`.
    package init(state: URL) { store = StateStore(state) }

    /// The same, in the session's state folder.
    init(store: StateStore) { self.store = store }

    /// Pins `root` (which must be validly self-signed) as the client's first trusted root.
    ///
    /// Pinning never replaces a state: when this folder already has one, pinning the same root again — the root
    /// first pinned (apps that pin the bundled root at every launch) or the root trusted now — changes nothing and
    /// returns the trusted root; any other root is refused with `pin-conflict`. Replacing the trusted root is the
    /// separate, deliberate `repin(rootFile:)`, which keeps the version floors and the clock.
    @discardableResult
    public func pin(rootFile: URL) throws -> RootDocument {
        let data = try SizeCaps.read(rootFile, cap: SizeCaps.root)
        let root = try VerificationFailure.about(rootFile, .root) { try RootChain().selfSigned(SignedDocument.envelope(data, what: "root")) }
        // Only a root worth pinning makes the state folder (and its lock).
        let lock = try store.lock(create: true)
        defer { lock.release() }
        if store.exists {
            let client = try store.load()
            let digest = SHA256.hexHash(Array(data))
            guard client.root == root || client.pinnedRootSHA256 == digest else {
                throw VerificationFailure(.pinConflict, "\(rootFile.path): \(state.path) already trusts root version \(client.root.version), and this is another root "
                    + "(version \(root.version)); pinning never replaces a client state (its version floors would be lost): use repin to change the trusted root")
            }
            return client.root
        }
        var client = ClientState(rootEnvelope: data.base64EncodedString(), root: root)
        client.pinnedRootSHA256 = SHA256.hexHash(Array(data))
        try store.save(client)
        return root
    }

    /// Replaces the trusted root with `rootFile`, deliberately: for a root delivered out of band (an app update that
    /// ships a new root after the trusted one expired or its keys were lost), which need not chain from the trusted
    /// one. It must be validly self-signed and not older than the trusted root: the same root is a no-op, another
    /// root of the same version is a `pin-conflict`, an older one a `rollback`. The version floors (index, packs,
    /// scenes) and the clock guard are kept; as with a rotation, a role whose keys changed loses the floor its old
    /// keys could have raised (`ClientState.trust(root:envelope:)`).
    @discardableResult
    public func repin(rootFile: URL) throws -> RootDocument {
        let data = try SizeCaps.read(rootFile, cap: SizeCaps.root)
        let root = try VerificationFailure.about(rootFile, .root) { try RootChain().selfSigned(SignedDocument.envelope(data, what: "root")) }
        let lock = try store.lock()
        defer { lock.release() }
        var client = try store.load()
        if client.root == root { return client.root }
        guard root.version != client.root.version else {
            throw VerificationFailure(.pinConflict, "\(rootFile.path): root version \(root.version) differs from the trusted root of the same version")
        }
        try VerificationFailure.about(rootFile, .rollback) { try root.admission(.rootRotation, AdmissionContext(root: client.root, now: 0, floors: client.floors)).require() }
        client.trust(root: root, envelope: data)
        client.pinnedRootSHA256 = SHA256.hexHash(Array(data))
        try store.save(client)
        return root
    }

    /// Follows root N+1, N+2… in order; each must be signed by a threshold of the previous root's and its own root
    /// keys. A version at or below the current one is a rollback and refused. A rotation of the index role's keys
    /// resets the index floor (see `ClientState.trust(root:envelope:)`): the way back from a stolen index key.
    @discardableResult
    public func update(roots files: [URL]) throws -> RootDocument {
        let lock = try store.lock()
        defer { lock.release() }
        var client = try store.load()
        for file in files {
            let (next, data) = try Self.successor(of: client.root, floors: client.floors, file: file)
            client.trust(root: next, envelope: data)
        }
        try store.save(client)
        return client.root
    }

    /// The root in `file` accepted as the successor of `root` (signed by a threshold of `root`'s and of its own root
    /// keys, the next version, not below `floors`), with its bytes. Saves nothing: `Updater` checks each root this
    /// way as it arrives, without the state lock, and `update(roots:)` checks them again under it before saving.
    public static func successor(of root: RootDocument, floors: Rollback.Floors, file: URL) throws -> (RootDocument, Data) {
        let data = try SizeCaps.read(file, cap: SizeCaps.root)
        let envelope = try VerificationFailure.about(file, .root) { try SignedDocument.envelope(data, what: "root") }
        let candidate = try VerificationFailure.about(file, .root) { try SignedDocument.decode(RootDocument.self, from: envelope.payloadBytes(), what: "root") }
        try candidate.admission(.rootRotation, AdmissionContext(root: root, now: 0, floors: floors)).require()
        return (try RootChain().next(after: root, envelope), data)
    }

    /// Verifies an index: index-role threshold, not expired (a mirror that stopped updating is frozen), version not
    /// below the last seen, no pack version below what is installed, and no revocation list older than the one held.
    /// Records it and confirms the clock.
    ///
    /// `revocations` is the revocation list the index binds, fetched beforehand (`Updater.plan` does, capped at the
    /// bound size): when the index binds a newer list than the one held, it must match the binding's size and
    /// SHA-256, be a revocation list signed by the grant role, and be the bound version; it is then stored with the
    /// index, in the same save. Any refusal saves neither. Without it the held list stays (an index accepted this way
    /// never lowers it).
    public func accept(index file: URL, revocations listFile: URL? = nil) throws -> IndexDocument {
        let lock = try store.lock()
        defer { lock.release() }
        var client = try store.load()
        let reading = self.reading()
        let verdict = clock.observe(reading, state: &client.clock)
        let data = try SizeCaps.read(file, cap: SizeCaps.index)
        // Read unverified only to explain a refusal: an index signed under a root this client has not reached fails
        // its signatures anyway, and naming the missing root file says why.
        if let unverified = try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope(data, what: "index").payloadBytes(), what: "index") {
            try RootReached(trusted: client.root.version).evaluate(indexRootVersion: unverified.rootVersion, reached: "this client's root chain").require()
        }
        // The install profile: signature, the root's and the index's times against the guarded clock, and the floors
        // (index version, each pack's version, the bound revocation list's version).
        let index = try VerificationFailure.about(file, .document) {
            try SignedDocument().admit(data, as: IndexDocument.self, profile: .install, context: AdmissionContext(root: client.root, now: verdict.now, floors: client.floors))
        }
        guard let created = Timestamp.parse(index.created) else { throw VerificationFailure(.expiry, "the index has no valid creation time") }
        if let binding = index.revocations {
            // One version, one list: an index binding other bytes under the version already held is a server
            // showing different clients different lists.
            if binding.version == client.floors.revocations, let held = client.revocationsSHA256, held != binding.sha256 {
                throw VerificationFailure(.mixAndMatch, "\(file.path): the index binds revocation list version \(binding.version) with another SHA-256 than the list already held")
            }
            if let listFile, binding.version > client.floors.revocations {
                client.revocations = try Self.revocations(listFile, binding: binding, root: client.root)
                client.revocationsSHA256 = binding.sha256
            }
        }
        client.indexVersion = index.version
        client.acceptedIndex = index.packs
        clock.confirmOnline(indexCreated: created.timeIntervalSince1970, reading: reading, state: &client.clock)
        try store.save(client)
        return index
    }

    /// The revocation list in `file`, checked against the index's `binding`: its place in the layout, size, SHA-256,
    /// payload type, the grant role's threshold under `root`, and version.
    static func revocations(_ file: URL, binding: IndexDocument.Revocations, root: RootDocument) throws -> RevocationsDocument {
        try checkLayout(binding)
        guard binding.size <= SizeCaps.revocations else {
            throw VerificationFailure(.size, "the index binds a revocation list of \(binding.size) bytes, over the \(SizeCaps.revocations)-byte cap")
        }
        let data = try SizeCaps.read(file, cap: binding.size)
        // The binding's one admission (PackTrust), shared with `packtool verify`, `status` and every index writer. Its
        // version was held to the client's floor as the index's binding, and must equal it.
        return try VerificationFailure.about(file, .document) {
            try binding.admit(list: data, profile: .install, context: AdmissionContext(root: root))
        }
    }

    /// The index trusts a list's hash, not its path: it must be where the published layout puts that version
    /// (`IndexLayout`, part of the index's admission; checked here too on an index read before it is admitted).
    static func checkLayout(_ binding: IndexDocument.Revocations) throws {
        try IndexLayout.evaluate(binding).require()
    }
}

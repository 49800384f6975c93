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

/// The client's trust operations on its persisted state: pin the first root, follow root rotations, and accept
/// signed indexes — each refusing rollback, expiry and the wrong signers, and changing nothing when it refuses.
public struct Trust {
    public let state: URL
    public var clock = ClockGuard()
    public var reading: () -> ClockGuard.Reading = ClockGuard.Reading.system

    public init(state: URL) { self.state = state }

    /// Pins `root` (which must be validly self-signed) as the client's first trusted root.
    @discardableResult
    public func pin(rootFile: URL) throws -> RootDocument {
        let data = try SizeCaps.read(rootFile, cap: SizeCaps.root)
        let root = try VerificationFailure.about(rootFile, .root) { try RootChain().selfSigned(SignedDocument.envelope(data, what: "root")) }
        // Only a root worth pinning makes the state folder (and its lock).
        let lock = try StateLock.acquire(state, create: true)
        defer { lock.release() }
        let client = ClientState(rootEnvelope: data.base64EncodedString(), root: root)
        try client.save(to: state)
        return root
    }

    /// Follows root N+1, N+2… in order; each must be signed by a threshold of the previous root's and its own root
    /// keys. A version at or below the current one is a rollback and refused.
    @discardableResult
    public func update(roots files: [URL]) throws -> RootDocument {
        let lock = try StateLock.acquire(state)
        defer { lock.release() }
        var client = try ClientState.load(from: state)
        for file in files {
            let data = try SizeCaps.read(file, cap: SizeCaps.root)
            let envelope = try VerificationFailure.about(file, .root) { try SignedDocument.envelope(data, what: "root") }
            let candidate = try VerificationFailure.about(file, .root) { try SignedDocument.decode(RootDocument.self, from: envelope.payloadBytes(), what: "root") }
            try Rollback(floors: client.floors).evaluate(rootVersion: candidate.version).require()
            client.root = try RootChain().next(after: client.root, envelope)
            client.rootEnvelope = data.base64EncodedString()
        }
        try client.save(to: state)
        return client.root
    }

    /// Verifies an index: index-role threshold, not expired (a mirror that stopped updating is frozen), version not
    /// below the last seen, and no pack version below what is installed. Records it and confirms the clock.
    public func accept(index file: URL) throws -> IndexDocument {
        let lock = try StateLock.acquire(state)
        defer { lock.release() }
        var client = try ClientState.load(from: state)
        let reading = self.reading()
        let verdict = clock.observe(reading, state: &client.clock)
        let data = try SizeCaps.read(file, cap: SizeCaps.index)
        // Read unverified only to explain a refusal: an index signed under a root this client has not reached fails
        // its signatures anyway, and naming the missing root file says why.
        if let unverified = try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope(data, what: "index").payloadBytes(), what: "index") {
            try RootReached(trusted: client.root.version).evaluate(indexRootVersion: unverified.rootVersion, reached: "this client's root chain").require()
        }
        let index = try VerificationFailure.about(file, .document) {
            try SignedDocument().open(data, as: IndexDocument.self, type: PayloadType.index, role: "index", root: client.root, what: "index")
        }
        try RootChain.checkExpiry(client.root, now: Date(timeIntervalSince1970: verdict.now))
        guard let created = Timestamp.parse(index.created) else { throw VerificationFailure(.expiry, "the index has no valid creation time") }
        try Expiry(now: verdict.now).evaluate(expires: index.expires, what: "the index", hint: "; the mirror may be frozen").require()
        try Rollback(floors: client.floors).evaluate(index: .init(version: index.version, packs: index.packs.mapValues(\.version))).require()
        client.indexVersion = index.version
        clock.confirmOnline(indexCreated: created.timeIntervalSince1970, reading: reading, state: &client.clock)
        try client.save(to: state)
        return index
    }
}

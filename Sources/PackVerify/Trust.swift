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
        let root = try VerificationFailure.about(rootFile, .root) { try RootChain().selfSigned(DSSEEnvelope.parse(data)) }
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
            let envelope = try VerificationFailure.about(file, .root) { try DSSEEnvelope.parse(data) }
            let candidate = try VerificationFailure.about(file, .root) { try CanonicalJSON.decode(RootDocument.self, from: envelope.payloadBytes(), what: "root") }
            if candidate.version <= client.root.version {
                throw VerificationFailure(.rollback, "root version \(candidate.version) is not newer than the trusted version \(client.root.version)")
            }
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
        let payload = try SignedDocument().payload(of: DSSEEnvelope.parse(data), type: PayloadType.index, role: "index", root: client.root)
        let index = try CanonicalJSON.decode(IndexDocument.self, from: payload, what: "index")
        try RootChain.checkExpiry(client.root, now: Date(timeIntervalSince1970: verdict.now))
        guard let expires = Timestamp.parse(index.expires), let created = Timestamp.parse(index.created) else {
            throw VerificationFailure(.expiry, "the index has no valid times")
        }
        if verdict.now >= expires.timeIntervalSince1970 {
            throw VerificationFailure(.expired, "the index expired at \(index.expires); the mirror may be frozen")
        }
        if index.version < client.indexVersion {
            throw VerificationFailure(.rollback, "index version \(index.version) is older than version \(client.indexVersion) already seen")
        }
        for (pack, entry) in index.packs {
            if let seen = client.manifestVersions[pack], entry.version < seen {
                throw VerificationFailure(.rollback, "the index offers \(pack) version \(entry.version), older than version \(seen) installed")
            }
        }
        client.indexVersion = index.version
        clock.confirmOnline(indexCreated: created.timeIntervalSince1970, reading: reading, state: &client.clock)
        try client.save(to: state)
        return index
    }
}

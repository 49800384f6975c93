#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackSigning
import PackTrust

/// The publisher's signed revocation lists, `<state>/revocations/N.json` — the same relative path each has in the
/// published tree (`PublishLayout.revocations(version:)`). Each version is written once by `grant revoke`; `renew`
/// copies the newest into the tree and binds it in the index (DESIGN.md §8.3).
public struct RevocationStore {
    public let state: URL

    public init(state: URL) { self.state = state }

    /// One stored list: its version, file, exact signed bytes and decoded payload.
    public struct Stored: Sendable {
        public var version: Int
        public var url: URL
        public var bytes: Data
        public var document: RevocationsDocument

        /// How an index binds this list (what `renew` writes into `IndexDocument.revocations`).
        public var binding: IndexDocument.Revocations {
            .init(version: version, path: PublishLayout.revocations(version: version), size: UInt64(bytes.count), sha256: SHA256.hexHash(Array(bytes)))
        }
    }

    /// What `revoke` did.
    public enum Outcome: Sendable {
        /// A new list was signed and written.
        case written(Stored, entry: RevocationsDocument.Entry)
        /// The id was already on the newest list: nothing was written.
        case alreadyRevoked(Stored, entry: RevocationsDocument.Entry)
    }

    /// The file of list `version` in the state.
    public func url(version: Int) -> URL { state.appendingPathComponent(PublishLayout.revocations(version: version)) }

    /// The versions of every stored list, ascending (names that are not `N.json` are ignored).
    public func versions() throws -> [Int] {
        try StateFolder.check(state.path)
        let folder = url(version: 1).deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.compactMap { name -> Int? in
            guard name.hasSuffix(".json"), let v = Int(name.dropLast(5)), v >= 1, "\(v).json" == name else { return nil }
            return v
        }.sorted()
    }

    /// The newest stored list, read back and decoded (its signature is the publisher's own and is not re-checked
    /// here; `packtool verify` checks it in the tree). Nil before the first revocation.
    public func latest() throws -> Stored? {
        guard let version = try versions().last else { return nil }
        let url = url(version: version)
        do {
            let bytes = try SizeCaps.read(url, cap: SizeCaps.revocations)
            let envelope = try DSSEEnvelope.parse(bytes)
            guard envelope.payloadType == DocumentKind.revocations.payloadType else { throw PublishError.io("\(ShownPath.of(url)): not a revocation list (\(envelope.payloadType))") }
            let document = try CanonicalJSON.decode(RevocationsDocument.self, from: envelope.payloadBytes(), what: "revocation list")
            guard document.version == version else { throw PublishError.io("\(ShownPath.of(url)) holds list version \(document.version)") }
            return Stored(version: version, url: url, bytes: bytes, document: document)
        } catch let e as PublishError {
            throw e
        } catch {
            throw PublishError.io("\(ShownPath.of(url)): cannot read this revocation list: \(error)")
        }
    }

    /// Revokes `id` (written in its canonical form): signs the next list (every earlier entry kept, this one appended) with `keys`, which must hold
    /// the grant role of the state's newest root, writes it once to `revocations/<N>.json` and records it in the
    /// grant ledger — both or neither. An id already on the newest list writes nothing.
    public func revoke(id: GrantID, reason: String, keys: [Ed25519PrivateKey], ledger: GrantLedger, now: Date = Date()) throws -> Outcome {
        guard id.isWhole else {
            throw PublishError.io("grant id \(id) is not a whole id (8 or 32 hex digits): clients compare whole ids, so it would revoke nothing")
        }
        try checkSigningKeys(keys)
        // The ledger's write transaction also serialises two revokes racing for the same next version. A commit that
        // fails after the file was linked takes the file away again.
        var written: URL?
        do {
            return try ledger.transaction {
                try revokeInTransaction(id: id, reason: reason, keys: keys, ledger: ledger, now: now, written: &written)
            }
        } catch {
            if let written { FileSystem.removeFile(written.path) }
            throw error
        }
    }

    private func revokeInTransaction(id: GrantID, reason: String, keys: [Ed25519PrivateKey], ledger: GrantLedger, now: Date,
                                     written: inout URL?) throws -> Outcome {
        do {
            let previous = try latest()
            if let previous, let entry = previous.document.revoked.first(where: { GrantID.canonical($0.id) == id.text }) {
                return .alreadyRevoked(previous, entry: entry)
            }
            let version = try Numbers.add(previous?.version ?? 0, 1, "the next revocation list version")
            // Written in canonical form (lower-case hex), the form every client compares.
            let entry = RevocationsDocument.Entry(id: id.text, reason: reason, revoked: Timestamp.format(now))
            let document = RevocationsDocument(version: version, created: entry.revoked, revoked: (previous?.document.revoked ?? []) + [entry])
            let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(document), as: PayloadType.revocations, with: keys)
            let bytes = try envelope.jsonData()
            guard UInt64(bytes.count) <= SizeCaps.revocations else {
                throw PublishError.trust("revocation list version \(version) would be \(bytes.count) bytes, over the \(SizeCaps.revocations)-byte cap clients accept")
            }
            let url = url(version: version)
            try Self.writeOnce(bytes, to: url)
            written = url
            try ledger.recordRevocation(entry, listVersion: version)
            return .written(Stored(version: version, url: url, bytes: bytes, document: document), entry: entry)
        }
    }

    /// After a rotation of the grant role (a stolen grant key), signs the newest list again under the newest root's
    /// grant keys, as the next version with the same entries: clients that follow the new root refuse a list signed by
    /// the retired key, and would otherwise refuse every index that binds it. A list the newest root's grant keys
    /// already sign writes nothing (`alreadyCurrent`); so does a state with no list (nil).
    ///
    /// `above`: a version the new list must be above besides the state's own — the highest `revocations/<N>.json` name
    /// in the tree, when a thief holding the retired key may have taken the next names there.
    public func resign(keys: [Ed25519PrivateKey], ledger: GrantLedger, above: Int = 0, now: Date = Date()) throws -> Resigned? {
        try checkSigningKeys(keys)
        guard let root = try RootStore(state: state).latest()?.document else { throw PublishError.trust("no root in \(ShownPath.of(state.appendingPathComponent("root")))") }
        var written: URL?
        do {
            return try ledger.transaction {
                guard let previous = try latest() else { return nil }
                if (try? SignedDocument().admit(previous.bytes, as: RevocationsDocument.self, profile: .publisherCheck, context: AdmissionContext(root: root))) != nil {
                    return .alreadyCurrent(previous)
                }
                let version = try Numbers.add(max(previous.version, above), 1, "the next revocation list version")
                let document = RevocationsDocument(version: version, created: Timestamp.format(now), revoked: previous.document.revoked)
                let bytes = try DSSEEnvelope(signing: CanonicalJSON.encode(document), as: PayloadType.revocations, with: keys).jsonData()
                let url = url(version: version)
                try Self.writeOnce(bytes, to: url)
                written = url
                return .written(Stored(version: version, url: url, bytes: bytes, document: document), previous: previous.version)
            }
        } catch {
            if let written { FileSystem.removeFile(written.path) }
            throw error
        }
    }

    /// What `resign` did.
    public enum Resigned: Sendable {
        /// The newest list, signed again under the new grant key as the next version.
        case written(Stored, previous: Int)
        /// The newest list is already signed by the newest root's grant keys.
        case alreadyCurrent(Stored)
    }

    /// Refuses `keys` unless they hold the grant role of the state's newest root, enough of them for its threshold.
    public func checkSigningKeys(_ keys: [Ed25519PrivateKey]) throws {
        guard let root = try RootStore(state: state).latest()?.document else {
            throw PublishError.trust("no root in \(ShownPath.of(state.appendingPathComponent("root"))); run `packtool root init` first")
        }
        try root.checkGrantKeys(keys)
    }

    /// Writes `data` to `url` only if nothing is there, through the shared link-based create-if-absent
    /// (`RootedFolder.createIfAbsent`): readers see the whole list or none, and any failure leaves nothing.
    static func writeOnce(_ data: Data, to url: URL) throws {
        let folder = url.deletingLastPathComponent()
        let created: Bool
        do { created = try RootedFolder(opening: folder.path, create: true).createIfAbsent(data, at: url.lastPathComponent) } catch {
            throw PublishError.io("\(error)")
        }
        guard created else { throw PublishError.io("\(ShownPath.of(url)) already exists; revocation lists are written once") }
    }
}

extension RootDocument {
    /// The keys must hold this root's grant role, enough of them for its threshold, or clients would refuse the list.
    func checkGrantKeys(_ keys: [Ed25519PrivateKey]) throws { try checkSigningKeys(role: Role.grant, keys) }
}

extension RevocationStore {
    /// The newest stored list, checked as clients will check it — a revocations document signed by a threshold of
    /// `root`'s grant keys — before any command publishes it (`renew`, `sign`, `export`). Nil before the first
    /// revocation.
    public func latestVerified(root: RootDocument) throws -> Stored? {
        guard let stored = try latest() else { return nil }
        do {
            _ = try SignedDocument().admit(stored.bytes, as: RevocationsDocument.self, profile: .publisherCheck, context: AdmissionContext(root: root))
        } catch let failure as VerificationFailure {
            let fix = failure.kind == .threshold
                ? ": the grant role's keys changed since it was signed; sign it again under the new key (`packtool grant resign --state \(ShownPath.of(state)) --grant-key NEW-GRANT.pem`)"
                : ""
            throw PublishError.trust("\(ShownPath.of(stored.url)) is not a revocation list clients would accept under root version \(root.version) (\(failure.message))\(fix); nothing was published")
        }
        return stored
    }
}

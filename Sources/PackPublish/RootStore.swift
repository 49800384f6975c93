#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackSigning

/// The publisher's signed root files, `state/root/N.root.json`: created by `root init`, extended by `root rotate`,
/// and copied into every published tree.
public struct RootStore {
    public let folder: URL

    public init(state: URL) { folder = state.appendingPathComponent("root") }

    /// Every stored root, by version. A stored root that cannot be read is an error naming its file.
    public func all() throws -> [(version: Int, envelope: DSSEEnvelope, bytes: Data, document: RootDocument)] {
        try StateFolder.check(folder.deletingLastPathComponent().path)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return try names.compactMap { name -> (Int, DSSEEnvelope, Data, RootDocument)? in
            guard name.hasSuffix(".root.json"), let v = Int(name.dropLast(".root.json".count)) else { return nil }
            let url = folder.appendingPathComponent(name)
            guard FileSystem.isRegularFile(url.path), let data = FileManager.default.contents(atPath: url.path) else {
                throw PublishError.io("\(ShownPath.of(url)): cannot read this root")
            }
            do {
                let envelope = try DSSEEnvelope.parse(data)
                let document = try CanonicalJSON.decode(RootDocument.self, from: envelope.payloadBytes(), what: "root")
                return (v, envelope, data, document)
            } catch {
                throw PublishError.io("\(ShownPath.of(url)): \(error)")
            }
        }.sorted { $0.0 < $1.0 }
    }

    public func latest() throws -> (version: Int, envelope: DSSEEnvelope, bytes: Data, document: RootDocument)? { try all().last }

    /// Builds a root document from role keys; key ids are the hashes of the keys.
    public static func document(version: Int, expires: Date, roles: [String: (keys: [Ed25519PublicKey], threshold: Int)]) throws -> RootDocument {
        var keys: [String: RootDocument.Key] = [:]
        var roleSpecs: [String: RootDocument.Role] = [:]
        for name in RootDocument.roles {
            guard let role = roles[name], !role.keys.isEmpty else { throw PublishError.trust("the \(name) role needs at least one key") }
            let ids = Array(Set(role.keys.map(\.keyID))).sorted()
            guard role.threshold >= 1, role.threshold <= ids.count else {
                throw PublishError.trust("the \(name) role's threshold \(role.threshold) must be between 1 and its \(ids.count) distinct key(s)")
            }
            for key in role.keys { keys[key.keyID] = RootDocument.Key(public: Hex.encode(key.rawRepresentation)) }
            roleSpecs[name] = RootDocument.Role(keyids: ids, threshold: role.threshold)
        }
        return RootDocument(version: version, expires: Timestamp.format(expires), keys: keys, roles: roleSpecs)
    }

    /// Signs and stores a root version, refusing to overwrite one that exists.
    public func write(_ document: RootDocument, signers: [Ed25519PrivateKey]) throws -> URL {
        try StateFolder.check(folder.deletingLastPathComponent().path)
        let envelope = try DSSEEnvelope(signing: CanonicalJSON.encode(document), as: PayloadType.root, with: signers)
        let url = folder.appendingPathComponent("\(document.version).root.json")
        // Linked into place from a complete temporary file: never replaces a root version, even one a racing run wrote.
        let created: Bool
        do {
            created = try RootedFolder(opening: folder.path, create: true).createIfAbsent(try envelope.jsonData(), at: url.lastPathComponent)
        } catch let error as FileError { throw PublishError.io("\(error)") }
        guard created else { throw PublishError.io("\(ShownPath.of(url)) already exists; root versions are never rewritten") }
        return url
    }
}

extension RootDocument {
    /// The signing keys must be the ones this root lists for their roles, enough of them, or clients would refuse
    /// what they sign.
    func checkSigningKeys(manifest: [Ed25519PrivateKey], index: [Ed25519PrivateKey]) throws {
        try checkSigningKeys(role: RootDocument.Role.manifest, manifest)
        try checkSigningKeys(role: RootDocument.Role.index, index)
    }

    /// The same check for one role.
    public func checkSigningKeys(role: String, _ keys: [Ed25519PrivateKey]) throws {
        guard let spec = roles[role] else { throw PublishError.trust("root version \(version) has no \(role) role") }
        for key in keys where !spec.keyids.contains(key.publicKey.keyID) {
            throw PublishError.trust("key \(key.publicKey.keyID) is not \(role == "index" ? "an" : "a") \(role) key in root version \(version)")
        }
        guard Set(keys.map(\.publicKey.keyID)).count >= spec.threshold else {
            throw PublishError.trust("the \(role) role needs \(spec.threshold) distinct signing keys; \(keys.count) given")
        }
    }
}

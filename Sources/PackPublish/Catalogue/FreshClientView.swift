#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel
import PackTrust

/// A published tree as a phone installing the app today would take it (DESIGN.md §9.1): root 1 pinned in the app,
/// every later root the tree holds followed, then the index, the revocation list it binds and each pack's manifest
/// admitted with the client's own admission code — the install profile at a given time, no floors — and each archive's
/// size held to the index. `status` asks it now and at the end of each horizon; every index writer asks it about the
/// index it is about to sign, so nothing is published that every client would refuse.
///
/// The archives' bytes are not read (that is `packtool verify`): the index pins their sizes and hashes, and a client
/// refuses a wrong byte as it arrives.
public struct FreshClientView {
    public let tree: PublishedTree
    public let roots: CatalogueRoots

    public init(tree: PublishedTree, roots: CatalogueRoots) {
        self.tree = tree
        self.roots = roots
    }

    /// What a fresh client refuses, and how much it stops.
    public struct Refusal: Sendable, Equatable, CustomStringConvertible {
        /// "root", "index", "revocations" or "manifest".
        public var document: String
        /// The pack whose installs fail, or nil when every client's every update fails.
        public var pack: String?
        /// The registry code a client reports (`expired`, `clock-skew`, `threshold`, …).
        public var code: String
        public var message: String

        public var description: String { message }
    }

    /// The newest root a fresh client reaches: root 1 comes with the app; each later version it fetches from the tree
    /// (`root/N.root.json`) until one is missing. Nil when the chain has no root 1.
    public func reachedRoot() throws -> RootDocument? {
        guard var reached = roots.root(version: 1) else { return nil }
        while let next = roots.root(version: reached.version + 1), try tree.size(of: PublishLayout.root(version: next.version)) != nil {
            reached = next
        }
        return reached
    }

    /// Everything a fresh client refuses at `time` about the index in `bytes` — and, with `packs`, about each pack it
    /// lists. Refusals with no pack stop every client.
    public func refusals(index bytes: Data, at time: Date, packs: Bool = true) -> [Refusal] {
        let place = tree.describe(PublishLayout.index)
        let root: RootDocument
        do {
            guard let reached = try reachedRoot() else {
                return [Refusal(document: "root", code: VerificationFailure.Code.rootMissing.name, message: "\(tree.describe(PublishLayout.root(version: 1))) is in no chain this catalogue trusts")]
            }
            root = reached
        } catch {
            return [Refusal(document: "root", code: VerificationFailure.Code.unreadable.name, message: "\(tree.location): \(error)")]
        }
        let context = AdmissionContext(root: root, now: time.timeIntervalSince1970)
        let index: IndexDocument
        do {
            if let unverified = try? SignedDocument.decode(IndexDocument.self, from: SignedDocument.envelope(bytes, what: "index").payloadBytes(), what: "index") {
                try RootReached(trusted: root.version).evaluate(indexRootVersion: unverified.rootVersion, reached: "a client of \(tree.location)").require()
            }
            index = try SignedDocument().admit(bytes, as: IndexDocument.self, profile: .install, context: context)
        } catch {
            return [Self.refusal("index", nil, place, error)]
        }
        var refusals: [Refusal] = []
        if let binding = index.revocations {
            do {
                guard let data = try tree.read(binding.path, cap: Int(min(binding.size, SizeCaps.revocations))) else {
                    throw VerificationFailure(.fetchMissing, "it is missing")
                }
                _ = try binding.admit(list: data, profile: .install, context: AdmissionContext(root: root))
            } catch {
                refusals.append(Self.refusal("revocations", nil, tree.describe(binding.path), error))
            }
        }
        if packs {
            for (pack, entry) in index.packs.sorted(by: { $0.key < $1.key }) {
                if let refusal = manifestRefusal(pack, entry, root: root, at: time) { refusals.append(refusal) }
            }
        }
        return refusals
    }

    /// Whether a fresh client at `time` installs `pack` as `entry` names it: the manifest's bytes, its admission, the
    /// version it holds and the archive's size. Nil when it would.
    public func manifestRefusal(_ pack: String, _ entry: IndexDocument.Entry, root: RootDocument, at time: Date) -> Refusal? {
        let place = tree.describe(entry.manifest.path)
        do {
            guard let bytes = try tree.read(entry.manifest.path, cap: Int(min(entry.manifest.size, SizeCaps.manifest))) else {
                throw VerificationFailure(.fetchMissing, "it is missing: clients cannot install \(pack)")
            }
            try MixAndMatch(entry: entry).evaluate(manifestBytes: Array(bytes)).require()
            let manifest = try SignedDocument().admit(bytes, as: Manifest.self, profile: .install, context: AdmissionContext(root: root, now: time.timeIntervalSince1970))
            try MixAndMatch(entry: entry).evaluate(manifestVersion: manifest.version).require()
            guard manifest.pack == pack else { throw VerificationFailure(.mixAndMatch, "it is pack \(manifest.pack), the index lists it as \(pack)") }
            let size = try tree.size(of: entry.archive.path)
            guard let size, size == unknownSize || size == entry.archive.size else {
                return Refusal(document: "manifest", pack: pack, code: VerificationFailure.Code.size.name,
                               message: "\(tree.describe(entry.archive.path)) is \(size.map { "\($0) bytes, not the \(entry.archive.size) the index names" } ?? "missing"): clients cannot install \(pack)")
            }
            return nil
        } catch {
            return Self.refusal("manifest", pack, place, error)
        }
    }

    static func refusal(_ document: String, _ pack: String?, _ place: String, _ error: Error) -> Refusal {
        if let failure = error as? VerificationFailure {
            return Refusal(document: document, pack: pack, code: failure.code, message: "\(place): \(failure.message)")
        }
        return Refusal(document: document, pack: pack, code: VerificationFailure.Code.unreadable.name, message: "\(place): \(error)")
    }
}

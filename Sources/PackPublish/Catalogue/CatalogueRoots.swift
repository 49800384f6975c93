#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel
import PackTrust

/// The roots a lifecycle command trusts: the state folder's (when it has one), and the tree's `root/N.root.json`
/// — each of them chained from the first by `RootChain` (root 1 self-signed, every later one signed by its
/// predecessor's and its own root keys), so a root someone else put in the tree is refused, never trusted.
public struct CatalogueRoots {
    /// Verified roots, version 1 upward, with each one's envelope bytes.
    public private(set) var chain: [(document: RootDocument, bytes: Data)] = []

    public var latest: RootDocument? { chain.last?.document }

    /// The verified root of `version`, or nil.
    public func root(version: Int) -> RootDocument? { chain.first { $0.document.version == version }?.document }

    /// Roots from the state folder, then any later ones the tree holds.
    public static func load(state: URL?, tree: PublishedTree) throws -> CatalogueRoots {
        var roots = CatalogueRoots()
        if let state {
            for stored in try RootStore(state: state).all() {
                try roots.append(stored.bytes, from: "\(ShownPath.of(state.appendingPathComponent(PublishLayout.root(version: stored.version))))")
            }
        }
        while true {
            let version = (roots.latest?.version ?? 0) + 1
            guard let bytes = try tree.read(PublishLayout.root(version: version), cap: Int(SizeCaps.root)) else { break }
            try roots.append(bytes, from: tree.describe(PublishLayout.root(version: version)))
        }
        guard !roots.chain.isEmpty else {
            throw PublishError.trust("\(tree.describe(PublishLayout.root(version: 1))) is missing\(state == nil ? "" : " and \(ShownPath.of(state!.appendingPathComponent("root"))) holds no root"): no root to check the index against (`packtool root init` makes one)")
        }
        return roots
    }

    /// Appends the next root version after checking it chains from the last one.
    mutating func append(_ bytes: Data, from place: String) throws {
        do {
            let envelope = try SignedDocument.envelope(bytes, what: "root")
            let document = try latest.map { try RootChain().next(after: $0, envelope) } ?? RootChain().selfSigned(envelope)
            chain.append((document, bytes))
        } catch let failure as VerificationFailure {
            throw PublishError.trust("\(place): \(failure.message); it does not chain from root version \(latest?.version ?? 0)")
        }
    }
}

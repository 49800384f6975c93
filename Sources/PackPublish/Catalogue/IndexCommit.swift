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
import PackCrypto
import PackModel
import PackSigning
import PackTrust

/// The one way any command replaces a published `index.json` (DESIGN.md §5, §8.2): read the index and its tag,
/// check it is this catalogue's (signed by the index role of a root the catalogue trusts), build the next one from
/// it, sign, and swap it in only if the index is still the one read; otherwise read again and rebuild on top of the
/// other writer's index. So a `renew` racing a `sign --publish` never rolls back the version or drops a release, and
/// an index someone else wrote is refused with a message rather than overwritten.
public struct IndexCommit {
    /// Larger than any index: a catalogue's index is a few hundred bytes per pack.
    public static let indexCap = Int(SizeCaps.index)

    public let tree: PublishedTree
    public let roots: CatalogueRoots
    public let keys: [Ed25519PrivateKey]
    /// How many times to read again after losing a race before giving up.
    public var attempts = 64

    public init(tree: PublishedTree, roots: CatalogueRoots, keys: [Ed25519PrivateKey]) {
        self.tree = tree
        self.roots = roots
        self.keys = keys
    }

    /// The index as read from the tree: verified document, bytes, and the tag a swap compares against.
    public struct Current {
        public var document: IndexDocument
        public var bytes: Data
        public var tag: String
        /// Signed under an earlier root by index keys the newest root no longer lists (a rotation away from a stolen
        /// key): its version still counts, but what it lists may be a thief's and is never signed again.
        public var retired = false

        /// What a writer may build on: the document, or for a retired index only its version.
        public var trusted: IndexDocument {
            guard retired else { return document }
            var stub = document
            stub.packs = [:]
            stub.revocations = nil
            return stub
        }
    }

    /// What a commit did.
    public enum Outcome {
        /// `make` had nothing to change.
        case unchanged(Current)
        /// The new index, its bytes, and how many reads it took (1 without a race).
        case written(IndexDocument, Data, attempts: Int)
    }

    /// Reads and verifies the tree's index (nil when it has none). An index that does not verify under the root it
    /// names is another party's, or damaged: refused, so it is never silently replaced.
    public func current() throws -> Current? {
        guard let (bytes, tag) = try tree.readIndex() else { return nil }
        var current = Current(document: try verify(bytes), bytes: bytes, tag: tag)
        if let latest = roots.latest, current.document.rootVersion < latest.version {
            current.retired = (try? SignedDocument().payload(of: SignedDocument.envelope(bytes, what: "index"), kind: .index, root: latest)) == nil
        }
        return current
    }

    func verify(_ bytes: Data) throws -> IndexDocument {
        let place = tree.describe(PublishLayout.index)
        let advice = "packtool signs nothing over it; if this tree is really this catalogue's, move the file aside and publish again"
        do {
            let envelope = try SignedDocument.envelope(bytes, what: "index")
            let claimed = try SignedDocument.decode(IndexDocument.self, from: envelope.payloadBytes(), what: "index")
            guard claimed.rootVersion >= 1 else {
                throw PublishError.trust("\(place) names root version \(claimed.rootVersion), which no root has: it is not an index packtool wrote; \(advice)")
            }
            guard let root = roots.root(version: claimed.rootVersion) else {
                throw PublishError.trust("\(place) names root version \(claimed.rootVersion), and this catalogue's roots end at version \(roots.latest?.version ?? 0): it was published from a newer state, or by someone else; \(advice)")
            }
            // At rest: the index built upon may have expired (renewing it is the point); only its signature and content count.
            return try SignedDocument().admit(bytes, as: IndexDocument.self, profile: .atRest, context: AdmissionContext(root: root))
        } catch let failure as VerificationFailure {
            throw PublishError.trust("\(place) is not an index this catalogue signed (\(failure.message)): \(advice)")
        }
    }

    /// Builds the next index from the current one with `make` (nil: nothing to change), signs it and swaps it in,
    /// retrying on top of whatever another writer put there. `make` must give a higher version than the current
    /// index's. `record` runs just before each swap (a ledger entry) and returns how to take it back if the swap
    /// is lost or fails.
    @discardableResult
    public func commit(_ make: (Current?) throws -> IndexDocument?,
                       record: ((IndexDocument, Data) throws -> () -> Void)? = nil) throws -> Outcome {
        guard let latest = roots.latest else { throw PublishError.trust("no root") }
        try latest.checkSigningKeys(role: RootDocument.Role.index, keys)
        var generator = SystemRandomNumberGenerator()
        for attempt in 1...attempts {
            let current = try current()
            guard let next = try make(current) else {
                guard let current else { throw PublishError.io("\(tree.location) has no index.json to keep") }
                return .unchanged(current)
            }
            if let current, next.version <= current.document.version {
                throw PublishError.trust("index version \(next.version) would not be above the published version \(current.document.version)")
            }
            let bytes = try DSSEEnvelope(signing: CanonicalJSON.encode(next), as: PayloadType.index, with: keys).jsonData()
            let undo = try record?(next, bytes)
            let swapped: Bool
            do { swapped = try tree.swapIndex(bytes, expected: current?.tag) } catch {
                undo?()
                throw error
            }
            if swapped { return .written(next, bytes, attempts: attempt) }
            undo?()
            // Another writer won: back off a little (more each time, with jitter) and build on its index.
            let millis = UInt32.random(in: 1...(5 * UInt32(min(attempt, 20))), using: &generator)
            usleep(millis * 1000)
        }
        throw PublishError.io("\(tree.describe(PublishLayout.index)) kept changing while it was being replaced (\(attempts) attempts); nothing was lost: run the command again")
    }
}

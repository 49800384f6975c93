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
    /// The publisher's state, when the writer has one: its revocation lists and ledger raise the tree's floor.
    public var state: URL?
    /// Where this machine keeps its memory of trees (`RenewMemory`): read into the floor, and raised after each write.
    /// Nil: no memory is read or kept.
    public var memory: URL?
    /// How long to wait, when only versioned files the tree's index does not list yet put the new index below the
    /// floor (a release being published meanwhile writes them before its index), for that index before refusing.
    public var releaseWait: TimeInterval = 300
    /// How often to look again while waiting.
    public var releasePoll: TimeInterval = 1

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

    /// The tree's floor (`TreeFloor`) as it is now, given the index it lists and this machine's memory of the tree.
    /// The memory must be read before the index it is compared with: another writer on this machine raises it just
    /// after its swap, so read the other way round a race would look like a put-back index.
    public func floor(listed: IndexDocument?, remembered: RenewMemory?) throws -> TreeFloor {
        try TreeFloor.read(tree: tree, roots: roots, state: state, memory: remembered, listed: listed)
    }

    /// This machine's memory of the tree, if it keeps one.
    public func remembered() -> RenewMemory? { memory.flatMap { RenewMemory.load(from: $0, location: tree.location) } }

    /// Builds the next index from the current one with `make` (nil: nothing to change), signs it and swaps it in,
    /// retrying on top of whatever another writer put there. `make` must give a higher version than the current
    /// index's. `record` runs just before each swap (a ledger entry) and returns how to take it back if the swap
    /// is lost or fails.
    ///
    /// Every index is held, before it is signed, to what no writer may go below (DESIGN.md §9.1): the tree's floor
    /// (its version numbered above it; a pack, revocation list or root below it refused — after waiting up to
    /// `releaseWait` when only a release in flight could explain it), the root's expiry (an index never outlives the
    /// root it is trusted under), and what a fresh client would make of it: an index every client would refuse (its
    /// revocation list signed by a retired grant key, say) is not published.
    @discardableResult
    public func commit(_ make: (Current?) throws -> IndexDocument?,
                       record: ((IndexDocument, Data) throws -> () -> Void)? = nil) throws -> Outcome {
        guard let latest = roots.latest else { throw PublishError.trust("no root") }
        try latest.checkSigningKeys(role: RootDocument.Role.index, keys)
        var generator = SystemRandomNumberGenerator()
        let waitUntil = Date().addingTimeInterval(releaseWait)
        var lost = 0
        while true {
            let remembered = remembered()
            let current = try current()
            guard var next = try make(current) else {
                guard let current else { throw PublishError.io("\(tree.location) has no index.json to keep") }
                // Nothing to change is no excuse to keep an index below the floor: a put-back index is refused here too.
                if let violation = try floor(listed: current.document, remembered: remembered).violation(of: current.document) {
                    if violation.inTree && Date() < waitUntil {
                        usleep(UInt32(releasePoll * 1_000_000))
                        continue
                    }
                    throw belowFloor(violation)
                }
                return .unchanged(current)
            }
            if let current, next.version <= current.document.version {
                throw PublishError.trust("index version \(next.version) would not be above the published version \(current.document.version)")
            }
            let floor = try floor(listed: current?.document, remembered: remembered)
            if let mark = floor.index, next.version <= mark.version { next.version = try Numbers.add(mark.version, 1, "the next index version") }
            if let violation = floor.violation(of: next) {
                if violation.inTree && Date() < waitUntil {
                    usleep(UInt32(releasePoll * 1_000_000))
                    continue
                }
                throw belowFloor(violation)
            }
            // An index is trusted only under an unexpired root: expiring later than the root would promise clients a
            // week the root does not give them.
            if let rootExpiry = Timestamp.parse(latest.expires), let expiry = Timestamp.parse(next.expires), expiry > rootExpiry { next.expires = latest.expires }
            let bytes = try DSSEEnvelope(signing: CanonicalJSON.encode(next), as: PayloadType.index, with: keys).jsonData()
            try checkFreshClient(bytes, created: next.created)
            let undo = try record?(next, bytes)
            let swapped: Bool
            do { swapped = try tree.swapIndex(bytes, expected: current?.tag) } catch {
                undo?()
                throw error
            }
            if swapped {
                remember(next)
                return .written(next, bytes, attempts: lost + 1)
            }
            undo?()
            lost += 1
            guard lost < attempts else {
                throw PublishError.io("\(tree.describe(PublishLayout.index)) kept changing while it was being replaced (\(attempts) attempts); nothing was lost: run the command again")
            }
            // Another writer won: back off a little (more each time, with jitter) and build on its index.
            let millis = UInt32.random(in: 1...(5 * UInt32(min(lost, 20))), using: &generator)
            usleep(millis * 1000)
        }
    }

    /// The checks `commit` makes of an index another command signed (`upload` putting a tree's signed index into a
    /// bucket as it is): not below the tree's floor, and nothing a fresh client would refuse. `remembered` is this
    /// machine's memory as read before `current` was.
    public func checkSigned(_ document: IndexDocument, bytes: Data, current: Current?, remembered: RenewMemory?) throws {
        // Its version was numbered when it was signed (the ledger records it), and the caller holds it above the
        // tree's current index; the axes a put-back index loses are judged here.
        if let violation = try floor(listed: current?.document, remembered: remembered).violation(of: document) { throw belowFloor(violation) }
        try checkFreshClient(bytes, created: document.created)
    }

    /// The refusal of an index below the floor, naming every axis and its evidence.
    func belowFloor(_ violation: TreeFloor.Violation) -> PublishError {
        .trust("\(tree.describe(PublishLayout.index)) would go backwards: \(violation). An older index was put back, or a release did not finish; "
            + "nothing was signed. With --state DIR the index is rebuilt from the ledger's releases and the state's revocation list; "
            + "otherwise publish the missing release again")
    }

    /// Refuses an index that every fresh client would refuse at its own creation time (the root, the index or the
    /// revocation list it binds; a pack's manifest stops only that pack, and is reported by the commands, not refused).
    func checkFreshClient(_ bytes: Data, created: String) throws {
        let time = Timestamp.parse(created) ?? Date()
        let refusals = FreshClientView(tree: tree, roots: roots).refusals(index: bytes, at: time, packs: false)
        guard refusals.isEmpty else {
            let advice = refusals.contains { $0.document == "revocations" && $0.code == VerificationFailure.Code.threshold.name }
                ? " The grant role's keys changed since this list was signed: sign it again under the new key (`packtool grant resign --state DIR --grant-key NEW-GRANT.pem`), then renew with --state DIR."
                : ""
            throw PublishError.trust("nothing was signed: every client would refuse this index (\(refusals.map(\.description).joined(separator: "; "))).\(advice)")
        }
    }

    /// Raises this machine's memory of the tree to `index` (quietly: a machine that cannot keep one renews without).
    func remember(_ index: IndexDocument) {
        guard let memory else { return }
        _ = RenewMemory(location: tree.location, index: index).save(to: memory)
    }
}

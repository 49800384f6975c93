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
    /// Told once when a commit starts waiting for a release in flight (what it waits for), so a person at a
    /// terminal knows why nothing happens for a while.
    public var waiting: ((String) -> Void)?
    /// Files that go into the tree with the next index and only with it, written just before the swap once every
    /// check has passed: roots (a client follows `root/N.root.json` without waiting for an index to name it, so a root
    /// published early, or beside an index it cannot admit, stops every client) and the revocation list the index
    /// binds. Each is written once (`PublishedTree.create`).
    public var staged: [(path: String, bytes: Data)] = []

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
        /// key): nothing in it counts — not what it lists, which may be a thief's, nor its version, which a thief may
        /// have set as high as numbers go (clients start counting again when the index keys change).
        public var retired = false

        /// What a writer may build on: the document, or for a retired index nothing but its root version.
        public var trusted: IndexDocument {
            guard retired else { return document }
            var stub = document
            stub.version = 0
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
        } catch let error as PublishError {
            throw error
        } catch {
            // Whatever layer found the fault (the envelope's JSON, its base64), the message names the file.
            throw PublishError.trust("\(place) is not an index this catalogue signed (\(error)): \(advice)")
        }
    }

    /// The tree's floor (`TreeFloor`) as it is now, given the index it lists and this machine's memory of the tree.
    /// The memory must be read before the index it is compared with: another writer on this machine raises it just
    /// after its swap, so read the other way round a race would look like a put-back index.
    public func floor(listed: IndexDocument?, remembered: RenewMemory?) throws -> TreeFloor {
        try TreeFloor.read(tree: tree, roots: roots, state: state, memory: remembered, listed: listed)
    }

    /// This machine's memory of the tree, if it keeps one.
    public func remembered() -> RenewMemory? { memory.flatMap { RenewMemory.load(from: $0, location: tree.memoryKey) } }

    /// Builds the next index from the current one with `make` (nil: nothing to change), signs it and swaps it in,
    /// retrying on top of whatever another writer put there. The version `make` gives is a lower bound: the commit
    /// numbers the index (`number`). `record` runs just before each swap (a ledger entry) and returns how to take it
    /// back if the swap is lost or fails.
    ///
    /// Every index is held, before it is signed, to what no writer may go below (DESIGN.md §9.1): the tree's floor
    /// (its version numbered above it; a pack or revocation list below it refused — after waiting up to `releaseWait`
    /// when only a release in flight could explain it), the root's expiry (an index never outlives the root it is
    /// trusted under), and what a fresh client would make of it with the staged files in the tree: an index every
    /// client would refuse (its revocation list signed by a retired grant key, say) is not published, nor a root
    /// that would make clients refuse a pack they install today. Only then are the staged files written.
    @discardableResult
    public func commit(_ make: (Current?) throws -> IndexDocument?,
                       record: ((IndexDocument, Data) throws -> () -> Void)? = nil) throws -> Outcome {
        guard let latest = roots.latest else { throw PublishError.trust("no root") }
        try latest.checkSigningKeys(role: RootDocument.Role.index, keys)
        try checkStagedFit()
        var generator = SystemRandomNumberGenerator()
        let waitUntil = Date().addingTimeInterval(releaseWait)
        var toldWaiting = false
        func waitForRelease(_ violation: TreeFloor.Violation) -> Bool {
            guard violation.inTree && Date() < waitUntil else { return false }
            if !toldWaiting {
                waiting?("\(violation); waiting up to \(Int(releaseWait)) s for the release that wrote it to publish its index")
                toldWaiting = true
            }
            usleep(UInt32(releasePoll * 1_000_000))
            return true
        }
        var lost = 0
        while true {
            let remembered = remembered()
            let current = try current()
            guard var next = try make(current) else {
                guard let current else { throw PublishError.io("\(tree.location) has no index.json to keep") }
                // Nothing to change is no excuse to keep an index below the floor: a put-back index is refused here too.
                if let violation = try floor(listed: current.document, remembered: remembered).violation(of: current.document) {
                    if waitForRelease(violation) { continue }
                    throw belowFloor(violation)
                }
                return .unchanged(current)
            }
            let floor = try floor(listed: current?.document, remembered: remembered)
            next.version = try number(next.version, created: next.created, current: current, floor: floor)
            if let violation = floor.violation(of: next) {
                if waitForRelease(violation) { continue }
                throw belowFloor(violation)
            }
            // An index is trusted only under an unexpired root: expiring later than the root would promise clients a
            // week the root does not give them.
            if let rootExpiry = Timestamp.parse(latest.expires), let expiry = Timestamp.parse(next.expires), expiry > rootExpiry { next.expires = latest.expires }
            let bytes = try DSSEEnvelope(signing: CanonicalJSON.encode(next), as: PayloadType.index, with: keys).jsonData()
            try checkBeforePublishing(bytes, at: Timestamp.parse(next.created) ?? Date(), current: current)
            try publishStaged()
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

    /// Index versions per second of the clock (see `number`).
    static let versionsPerSecond = 1000
    /// Index versions from this one up count the signing clock's milliseconds (2001-09-09 and later); below it they
    /// were counted 1, 2, 3… before issue 41.
    static let clockNumbered = 1_000_000_000_000

    /// The version a new index takes: at least `proposed` and its creation time in milliseconds since 1970 (the
    /// `created` second × 1000), and above the index it replaces (unless a key the newest root retired signed it) and
    /// the floor's index mark — so several indexes signed within one second count up from it.
    ///
    /// The clock is what lets a writer that knows nothing of the versions clients hold — a fresh CI runner, `export`
    /// from a state whose ledger never saw the scheduled renewals — still number above every index signed before it:
    /// an older index put back and renewed there cannot come out below what phones have seen. A clock that ran ahead
    /// only makes the numbers larger; one set back falls to "one above the last".
    func number(_ proposed: Int, created: String, current: Current?, floor: TreeFloor) throws -> Int {
        let clock = Timestamp.parse(created).map { Int($0.timeIntervalSince1970) * Self.versionsPerSecond } ?? 0
        var version = max(proposed, clock, 1)
        var marks: [(version: Int, evidence: String)] = []
        if let current, !current.retired { marks.append((current.document.version, tree.describe(PublishLayout.index))) }
        if let mark = floor.index { marks.append((mark.version, mark.evidence)) }
        for mark in marks where version <= mark.version {
            guard mark.version < Int.max else {
                throw PublishError.trust("\(mark.evidence) holds index version \(mark.version), the highest there is, so no index can follow it. Only the index key "
                    + "could sign that: someone else holds it. Rotate it (`packtool root rotate --state DIR --sign-with ROOT.pem --index-key NEW-INDEX.pem --publish \(tree.location)`, "
                    + "docs/operations.md); clients count index versions afresh under the new key")
            }
            version = mark.version + 1
        }
        return version
    }

    /// The checks `commit` makes of an index another command signed (`upload` putting a tree's signed index into a
    /// bucket as it is): not below the tree's floor, and nothing a fresh client would refuse with the staged files in
    /// the tree. `remembered` is this machine's memory as read before `current` was. The caller then writes the staged
    /// files (`publishStaged`) and swaps.
    public func checkSigned(_ document: IndexDocument, bytes: Data, current: Current?, remembered: RenewMemory?) throws {
        // Its version was numbered when it was signed (the ledger records it), and the caller holds it above the
        // tree's current index; the axes a put-back index loses are judged here.
        try checkStagedFit()
        if let violation = try floor(listed: current?.document, remembered: remembered).violation(of: document) { throw belowFloor(violation) }
        try checkBeforePublishing(bytes, at: Timestamp.parse(document.created) ?? Date(), current: current)
    }

    /// Publishes the staged files beside the index already in the tree, when it needs no new one (a rotation of the
    /// root keys alone): checked first as `commit` checks a new index, so a root goes out only if clients that follow
    /// it still admit that index and every pack they install today.
    @discardableResult
    public func publishStagedBesideCurrent(at time: Date) throws -> Set<String> {
        guard let current = try current() else { throw PublishError.io("\(tree.describe(PublishLayout.index)) does not exist: publish a release first") }
        try checkStagedFit()
        try checkBeforePublishing(current.bytes, at: time, current: current)
        return try publishStaged()
    }

    /// Refuses, before anything is signed or written, a staged file whose name the tree already holds with other bytes.
    func checkStagedFit() throws {
        for file in staged {
            guard let existing = try tree.read(file.path, cap: file.bytes.count + 1) else { continue }
            guard existing == file.bytes else {
                throw PublishError.contentMismatch("\(tree.describe(file.path)) is already there with other bytes; versioned files are never rewritten, and nothing was published. "
                    + "If nobody here published that file, it was put there on the host (an older document copied under this name, or anything else): "
                    + "remove it from the host and run the command again")
            }
        }
    }

    /// Writes the staged files (each once; one already there with the same bytes is left as it is). Returns the
    /// paths this call created (the others were there already).
    @discardableResult
    public func publishStaged() throws -> Set<String> {
        var created: Set<String> = []
        for file in staged where try tree.create(file.path, bytes: file.bytes) { created.insert(file.path) }
        return created
    }

    /// What a fresh client at `time` makes of the index in `bytes` with the staged files in the tree: every client
    /// refusing it stops the write (`checkFreshClient`); so does a staged root that makes clients refuse a pack that
    /// `current` gives them today (a manifest signed by a key the new root retires, not yet re-released).
    func checkBeforePublishing(_ bytes: Data, at time: Date, current: Current?) throws {
        let files = Dictionary(staged.map { ($0.path, $0.bytes) }, uniquingKeysWith: { a, _ in a })
        let view = FreshClientView(tree: StagedTree(tree, staged: files), roots: roots)
        try checkFreshClient(bytes, at: time, view: view)
        let newRoots = try staged.filter { $0.path.hasPrefix("root/") }.filter { try tree.size(of: $0.path) == nil }
        guard !newRoots.isEmpty else { return }
        let before = current.map { FreshClientView(tree: tree, roots: roots).refusals(index: $0.bytes, at: time) } ?? []
        let broken = view.refusals(index: bytes, at: time).filter { refusal in refusal.pack != nil && !before.contains { $0.pack == refusal.pack } }
        guard broken.isEmpty else {
            let rotated = newRoots.map { $0.path }.joined(separator: ", ")
            let advice = broken.contains { $0.code == VerificationFailure.Code.threshold.name }
                ? " The manifest role's keys change with it: re-release every pack under the new key first (`packtool renew --state DIR --manifest-key NEW-MANIFEST.pem --index-key INDEX.pem --publish \(tree.location)`)."
                : ""
            throw PublishError.trust("nothing was published: with \(rotated) in the tree, clients would refuse what they install today (\(broken.map(\.message).joined(separator: "; "))).\(advice)")
        }
    }

    /// The refusal of an index below the floor, naming every axis and its evidence.
    func belowFloor(_ violation: TreeFloor.Violation) -> PublishError {
        .trust("\(tree.describe(PublishLayout.index)) would go backwards: \(violation). An older index was put back, or a release did not finish; "
            + "nothing was signed. With --state DIR the index is rebuilt from the ledger's releases and the state's revocation list; "
            + "otherwise publish the missing release again."
            + (violation.inTree ? " If nobody here published the file named, someone else holds the key that signed it: rotate that role (docs/operations.md, drills)" : "")
            + (violation.foreign.isEmpty ? "" : " A file that is not the document signed at its name proves nothing and is never published over: remove it from the host "
                + "(docs/operations.md, \"An old index put back\"), then renew with --state DIR, which publishes the state's own documents in its place"))
    }

    /// Refuses an index that every fresh client would refuse at `time` (the root, the index or the revocation list
    /// it binds; a pack's manifest stops only that pack, and is reported by the commands, not refused).
    func checkFreshClient(_ bytes: Data, at time: Date, view: FreshClientView) throws {
        let refusals = view.refusals(index: bytes, at: time, packs: false)
        guard refusals.isEmpty else {
            let advice = refusals.contains { $0.document == "revocations" && $0.code == VerificationFailure.Code.threshold.name }
                ? " The grant role's keys changed since this list was signed: sign it again under the new key (`packtool grant resign --state DIR --grant-key NEW-GRANT.pem`), then renew with --state DIR."
                : ""
            throw PublishError.trust("nothing was published: every client would refuse this index (\(refusals.map(\.description).joined(separator: "; "))).\(advice)")
        }
    }

    /// Raises this machine's memory of the tree to `index` (quietly: a machine that cannot keep one renews without).
    func remember(_ index: IndexDocument) {
        guard let memory else { return }
        _ = RenewMemory(location: tree.memoryKey, index: index).save(to: memory)
    }
}

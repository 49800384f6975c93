#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackCrypto
import PackModel

/// What each envelope in a scene's signoff.json amounts to: the one judgement behind lint's sign-off findings and the
/// preview's sign-off panel, so the two can never disagree about whether a scene's review is current.
public struct SignoffAssessment: Sendable {
    public enum State: Equatable, Sendable {
        /// Verified, for this scene, over its current content.
        case current
        /// Verified, but over an earlier state of the scene; says what changed since.
        case stale(changes: String)
        /// The signature does not verify against a reviewer key in pack.json.
        case invalid
        /// The envelope does not carry a sign-off payload.
        case unreadable
        /// Verified, but for another scene.
        case wrongScene(String)
    }

    public struct Entry: Sendable {
        /// The envelope's position in signoff.json.
        public var index: Int
        public var signoff: Signoff?
        /// The reviewer as pack.json lists them, when the signature verified.
        public var reviewer: PackDocument.Reviewer?
        public var state: State
    }

    public enum Outcome: Sendable {
        /// The scene has no signoff.json.
        case missing
        /// signoff.json is not a list of envelopes (the structure rule says why).
        case malformed
        /// The scene's content digest could not be computed (an unreadable file).
        case undigestable(String)
        case assessed([Entry])
    }

    public let outcome: Outcome

    /// True when a historian's sign-off covers the scene's current content.
    public var isCurrent: Bool {
        guard case .assessed(let entries) = outcome else { return false }
        return entries.contains { $0.state == .current && $0.reviewer?.role == "historian" }
    }

    /// Assesses `source`'s sign-offs against the reviewers of its pack; nil when pack.json's reviewers cannot be read.
    /// Asked once per scene by lint and again by the preview: the context keeps each answer (`LintContext.signoff`).
    public static func of(_ source: SceneSource, in context: LintContext) -> SignoffAssessment? {
        context.signoff(source)
    }

    /// Reviewer id → the reviewer and their key, for the keys that parse (each key is read and checked once).
    static func reviewerKeys(_ reviewers: [PackDocument.Reviewer]) -> [String: (PackDocument.Reviewer, Ed25519PublicKey)] {
        Dictionary(reviewers.compactMap { r in
            guard let raw = Hex.decode(r.publicKey), let key = try? Ed25519PublicKey(rawRepresentation: raw) else { return nil }
            return (r.id, (r, key))
        }, uniquingKeysWith: { first, _ in first })
    }

    static func assess(_ source: SceneSource, in context: LintContext,
                       reviewers: [String: (PackDocument.Reviewer, Ed25519PublicKey)]) -> SignoffAssessment {
        guard let document = source.signoff else { return SignoffAssessment(outcome: .missing) }
        guard let envelopes = document.decode([DSSEEnvelope].self) else { return SignoffAssessment(outcome: .malformed) }
        let digest: TreeDigest
        do { digest = try context.contentDigest(source) } catch { return SignoffAssessment(outcome: .undigestable("\(error)")) }
        let entries = envelopes.enumerated().map { i, envelope -> Entry in
            guard let signoff = try? Signoff.decode(from: envelope) else { return Entry(index: i, signoff: nil, reviewer: nil, state: .unreadable) }
            guard let (reviewer, key) = reviewers[signoff.reviewer], envelope.signers(trusting: [key]).contains(key.keyID) else {
                return Entry(index: i, signoff: signoff, reviewer: nil, state: .invalid)
            }
            if signoff.scene != source.stop { return Entry(index: i, signoff: signoff, reviewer: reviewer, state: .wrongScene(signoff.scene)) }
            guard signoff.digest == digest.prefixed else {
                let changes = signoff.files.map { files in
                    describe(digest.changes(since: files.map { TreeDigest.Entry(path: $0.path, size: 0, sha256: $0.sha256) }))
                }
                return Entry(index: i, signoff: signoff, reviewer: reviewer,
                             state: .stale(changes: changes ?? "the scene is now \(digest.prefixed), it covers \(signoff.digest)"))
            }
            return Entry(index: i, signoff: signoff, reviewer: reviewer, state: .current)
        }
        return SignoffAssessment(outcome: .assessed(entries))
    }

    /// "changed since: scene.json; removed since: story.m4a; added since: notes.txt" — the parts that apply.
    static func describe(_ changes: TreeDigest.Changes) -> String {
        let parts = [("changed", changes.changed), ("removed", changes.removed), ("added", changes.added)]
            .filter { !$0.1.isEmpty }
            .map { "\($0.0) since: \(list($0.1))" }
        return parts.isEmpty ? "its file listing differs" : parts.joined(separator: "; ")
    }

    /// "a, b and 3 more".
    static func list(_ paths: [String]) -> String {
        paths.count <= 6 ? paths.joined(separator: ", ") : paths.prefix(5).joined(separator: ", ") + " and \(paths.count - 5) more"
    }
}

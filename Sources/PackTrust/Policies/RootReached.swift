import PackModel

/// An index names the root version it was signed under. Whoever reached only an older root (a client whose tree
/// lacks the next root file, a tree check) cannot verify it, and "0 of the index role's keys signed" would hide why;
/// this names the root file that is missing instead.
public struct RootReached: Sendable {
    /// The newest root version reached.
    public let trusted: Int

    /// A policy for a reader that reached root version `trusted`.
    public init(trusted: Int) { self.trusted = trusted }

    /// Meets when `indexRootVersion` is at most the version reached; `reached` says whose chain stopped ("the tree").
    public func evaluate(indexRootVersion: Int, reached: String) -> PolicyResult {
        // In the failing branch trusted < indexRootVersion ≤ Int.max, so trusted + 1 cannot overflow.
        .check(indexRootVersion <= trusted, .rootMissing,
               "the index names root version \(indexRootVersion) but \(reached) stops at root version \(trusted): \(PublishLayout.root(version: trusted + 1)) is missing")
    }
}

/// What a reader is doing when it reads a signed document, which decides the policies the document must meet. Every
/// profile checks the signature (payload type, role threshold, no repeated keys) and the document's own content
/// (ids, names, paths, numbers that must not overflow); the profiles differ only in what they judge against:
///
/// - `install`: a client taking the document in — signed times against the guarded clock, versions against the
///   client's floors.
/// - `publisherCheck`: `packtool verify` and the publisher's own checks — the same times, at the time asked about;
///   no floors (a tree has none), so a tree passes only if a fresh client would take it.
/// - `access`: an access decision from a manifest — the same times (an expired manifest opens nothing new); no floors.
/// - `rootRotation`: a root followed from its predecessor — versions against the floors only: an intermediate root
///   may have expired since; the newest root's expiry is judged whenever a document is admitted under it.
/// - `atRest`: a document already admitted and kept (an installed manifest) — its signature and content only; it
///   was judged on its times when it came in, and must keep working offline after they pass.
public struct AdmissionProfile: Hashable, Sendable, CustomStringConvertible {
    /// What messages call the profile ("install").
    public let name: String
    /// Signed times are judged: a creation time ahead of the clock (`clock-skew`), an expiry passed (`expired`).
    public let judgesTimes: Bool
    /// Versions are judged against the reader's floors (`rollback`).
    public let judgesFloors: Bool

    public var description: String { name }

    /// A client taking a document in: times and floors judged.
    public static let install = AdmissionProfile(name: "install", judgesTimes: true, judgesFloors: true)
    /// `packtool verify` and the publisher's checks: times judged, no floors.
    public static let publisherCheck = AdmissionProfile(name: "publisher check", judgesTimes: true, judgesFloors: false)
    /// An access decision from a manifest: times judged, no floors.
    public static let access = AdmissionProfile(name: "access", judgesTimes: true, judgesFloors: false)
    /// A root followed from its predecessor: floors judged, not times.
    public static let rootRotation = AdmissionProfile(name: "root rotation", judgesTimes: false, judgesFloors: true)
    /// A document already admitted and kept: signature and content only, so it keeps working offline.
    public static let atRest = AdmissionProfile(name: "at rest", judgesTimes: false, judgesFloors: false)

    /// Every profile, for tests and tables that cover them all.
    public static let all: [AdmissionProfile] = [install, publisherCheck, access, rootRotation, atRest]
}

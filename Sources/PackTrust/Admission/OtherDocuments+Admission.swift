import PackModel

/// A delta is admitted on its signature alone: what it binds (pack, scene, from and to versions and digests) is
/// checked by its reader against the manifest it leads to, which was admitted under its own profile.
extension DeltaDocument: Admissible {
    public static var kind: DocumentKind { .delta }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult { .meets }
}

/// An access code is admitted on its signature alone: its validity window, product and device are the access
/// decision's to judge (it answers "closed, because…", never refuses).
extension GrantDocument: Admissible {
    public static var kind: DocumentKind { .grant }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult { .meets }
}

/// A revocation list carries no times (the index binds its version and hash, DESIGN.md §8.3); a client never takes
/// one older than the list it holds, which would bring revoked codes back.
extension RevocationsDocument: Admissible {
    public static var kind: DocumentKind { .revocations }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult {
        profile.judgesFloors ? Rollback(floors: context.floors).evaluate(revocations: version) : .meets
    }
}

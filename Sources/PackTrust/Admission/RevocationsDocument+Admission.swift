import PackModel

/// A revocation list carries no times (the index binds its version and hash, DESIGN.md §8.3); a client never takes
/// one older than the list it holds, which would bring revoked codes back.
extension RevocationsDocument: Admissible {
    public static var kind: DocumentKind { .revocations }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult {
        profile.judgesFloors ? Rollback(floors: context.floors).evaluate(revocations: version) : .meets
    }
}

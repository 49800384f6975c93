import PackModel

/// A delta is admitted on its signature alone: what it binds (pack, scene, from and to versions and digests) is
/// checked by its reader against the manifest it leads to, which was admitted under its own profile.
extension DeltaDocument: Admissible {
    public static var kind: DocumentKind { .delta }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult { .meets }
}

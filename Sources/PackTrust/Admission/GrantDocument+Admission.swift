import PackModel

/// An access code is admitted on its signature alone: its validity window, product and device are the access
/// decision's to judge (it answers "closed, because…", never refuses).
extension GrantDocument: Admissible {
    public static var kind: DocumentKind { .grant }
    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult { .meets }
}

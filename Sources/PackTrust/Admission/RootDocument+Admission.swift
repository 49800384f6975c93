import PackModel

/// A root is used only before its expiry; a root followed from its predecessor must also be newer than the trusted
/// one. Its signatures (its own and its predecessor's root keys) are `RootChain`'s to check.
extension RootDocument: Admissible {
    public static var kind: DocumentKind { .root }

    public func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult {
        var checks: [() -> PolicyResult] = []
        if profile.judgesFloors { checks.append { Rollback(floors: context.floors).evaluate(rootVersion: version) } }
        if profile.judgesTimes { checks.append { Expiry(now: context.now).evaluate(expires: expires, what: "root version \(version)") } }
        return .first(checks)
    }
}

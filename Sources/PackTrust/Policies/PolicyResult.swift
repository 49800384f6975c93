/// What one verification policy answers: the input meets it, or fails it with a code and a reason.
///
/// Policies are small values, one per file in `Policies/`, each deciding one thing (a threshold, an expiry, a
/// rollback floor…). The installer, updater, delta applier, tree verifier and access decisions compose them, so each
/// check is written once.
public enum PolicyResult: Equatable, Sendable {
    case meets
    case fails(VerificationFailure)

    /// Throws the failure, for callers that stop at the first unmet policy.
    public func require() throws {
        if case .fails(let failure) = self { throw failure }
    }

    /// A failure with `code` and `reason` when `condition` is false.
    public static func check(_ condition: Bool, _ code: VerificationFailure.Code, _ reason: @autoclosure () -> String) -> PolicyResult {
        condition ? .meets : .fails(VerificationFailure(code, reason()))
    }

    /// The first of `checks` that fails, run in order and no further, or `.meets`.
    static func first(_ checks: [() -> PolicyResult]) -> PolicyResult {
        for check in checks {
            let result = check()
            if case .fails = result { return result }
        }
        return .meets
    }
}

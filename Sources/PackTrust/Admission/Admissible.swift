/// A document type that can be admitted: its kind (payload type, role, cap) and the policies it must meet beyond
/// its signature. The policies live beside the type (`Manifest+Admission.swift`, …), so each is listed once and
/// every reader gets the same list by picking a profile.
public protocol Admissible: Decodable {
    static var kind: DocumentKind { get }

    /// The first policy this document fails under `profile`, judged in `context`, or `.meets`. `what` names the
    /// document in reasons ("the manifest of city version 3").
    func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult
}

extension PolicyResult {
    /// The first of `checks` that fails, run in order and no further, or `.meets`.
    static func first(_ checks: [() -> PolicyResult]) -> PolicyResult {
        for check in checks {
            let result = check()
            if case .fails = result { return result }
        }
        return .meets
    }
}

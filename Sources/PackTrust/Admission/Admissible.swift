/// A document type that can be admitted: its kind (payload type, role, cap) and the policies it must meet beyond
/// its signature. The policies live beside the type (`Manifest+Admission.swift`, …), so each is listed once and
/// every reader gets the same list by picking a profile.
public protocol Admissible: Decodable {
    /// The document's payload type, signing role and size cap.
    static var kind: DocumentKind { get }

    /// The first policy this document fails under `profile`, judged in `context`, or `.meets`. Content policies
    /// (ids, names, paths, numbers) apply under every profile; times and floors where the profile judges them.
    func admission(_ profile: AdmissionProfile, _ context: AdmissionContext) -> PolicyResult
}

/// An access code's payload (grant role): which products it unlocks, between which times, for museums and gifts.
public struct GrantDocument: Codable, Equatable, Sendable {
    /// Always `"grant"`: the document names its own kind inside the signed bytes.
    public var type: String = "grant"
    /// A random id, so a code can be revoked.
    public var id: String
    /// Product ids (City Pack or Trip Pass ids from pack.json) the code unlocks.
    public var products: [String]
    /// RFC 3339 UTC; the code is valid in [notBefore, notAfter).
    public var notBefore: String
    /// RFC 3339 UTC; the first instant the code no longer opens anything.
    public var notAfter: String
    /// RFC 3339 UTC time the code was made; a record for the issuer, which access decisions do not use.
    public var issued: String
    /// Free text for the issuer (who the code is for, why); access decisions do not use it.
    public var note: String
    /// The one device the code opens on (the app's device identifier), or nil: a code without it is a bearer token
    /// that opens on any number of devices. Absent from the JSON when nil, so older codes keep their bytes.
    public var device: String?

    /// A grant payload; the times are RFC 3339 UTC, and `device` nil makes a bearer code.
    public init(id: String, products: [String], notBefore: String, notAfter: String, issued: String, note: String, device: String? = nil) {
        self.device = device
        self.id = id
        self.products = products
        self.notBefore = notBefore
        self.notAfter = notAfter
        self.issued = issued
        self.note = note
    }
}

import PackModel

/// The one JSON encoding packtool signs: keys in bytewise order, no insignificant whitespace, slashes unescaped —
/// `CanonicalEncoder`, not JSONEncoder, whose key order differs between Apple platforms and Linux. The same value
/// always gives the same bytes on every machine, so builds are reproducible and signatures are stable. Signing-side
/// only: the client verifies the bytes it is given and never encodes a signed document.
extension CanonicalJSON {
    /// The canonical bytes of `value`, the same on every platform.
    /// - Throws: when `value` holds something the canonical form refuses (a floating-point number, `Data`, `Date`,
    ///   `URL`).
    public static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        try CanonicalEncoder().encode(value)
    }
}

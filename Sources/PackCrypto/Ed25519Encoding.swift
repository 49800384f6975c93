/// Checks on Ed25519 encodings that packtool makes itself, before any crypto backend sees the bytes.
///
/// RFC 8032 leaves room for implementations to differ on edge cases (OpenSSL 3.0 accepts small-order keys and R
/// values; others do not; cofactored and cofactorless verifiers disagree on points with a small-order component),
/// and a verdict that depends on the backend is a parser differential. So public keys and signature R values that
/// are non-canonical encodings, not points on the curve, or points outside the prime-order subgroup (the small-order
/// points and every point with a small-order component: `Edwards25519`), and signatures whose S is not reduced
/// (S ≥ L), are refused here. On what is left, every correct Ed25519 verifier — cofactored or not — gives the same
/// verdict.
public enum Ed25519Encoding {
    /// The canonical encodings of the eight points of small order (the libsodium blocklist). No one holds a private
    /// key for them, and signatures under them can verify for unrelated messages.
    public static let smallOrderPoints: [[UInt8]] = [
        "0000000000000000000000000000000000000000000000000000000000000000",
        "0100000000000000000000000000000000000000000000000000000000000000",
        "0000000000000000000000000000000000000000000000000000000000000080",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
        "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
        "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ].map { Hex.decode($0)! }

    /// The group order L = 2^252 + 27742317777372353535851937790883648493, little-endian.
    public static let groupOrder: [UInt8] = Hex.decode("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")!

    /// True for one of the eight small-order point encodings.
    public static func isSmallOrder<C: Collection>(_ point: C) -> Bool where C.Element == UInt8 {
        point.count == 32 && smallOrderPoints.contains { $0.elementsEqual(point) }
    }

    /// True when a 32-byte point encoding is canonical: its y coordinate is below p = 2^255 − 19, and the sign bit
    /// is not set on a point whose x is 0 (y = 1 or y = p − 1), which has only one encoding.
    public static func isCanonicalPoint<C: Collection>(_ point: C) -> Bool where C.Element == UInt8 {
        let b = Array(point)
        guard b.count == 32 else { return false }
        // y ≥ p exactly when bits 8…254 are all ones and the low byte is at least 0xed.
        if b[31] & 0x7F == 0x7F, b[1...30].allSatisfy({ $0 == 0xFF }), b[0] >= 0xED { return false }
        if b[31] & 0x80 != 0 {
            var y = b
            y[31] &= 0x7F
            let one = [UInt8(1)] + [UInt8](repeating: 0, count: 31)
            let minusOne = [UInt8(0xEC)] + [UInt8](repeating: 0xFF, count: 30) + [0x7F]
            if y == one || y == minusOne { return false }
        }
        return true
    }

    /// True when a 32-byte little-endian scalar is reduced: S < L.
    public static func isReducedScalar<C: Collection>(_ scalar: C) -> Bool where C.Element == UInt8 {
        let s = Array(scalar)
        guard s.count == 32 else { return false }
        for i in stride(from: 31, through: 0, by: -1) where s[i] != groupOrder[i] { return s[i] < groupOrder[i] }
        return false
    }

    /// Why a public key encoding is refused, or nil when it is acceptable.
    public static func problem(withPublicKey key: [UInt8]) -> String? {
        if key.count != 32 { return "an Ed25519 public key is 32 bytes, got \(key.count)" }
        if !isCanonicalPoint(key) { return "not a canonical Ed25519 point encoding" }
        if isSmallOrder(key) { return "a small-order point, which no one holds a private key for" }
        return Edwards25519.problem(with: key)
    }

    /// True when a signature's shape passes the checks above: 64 bytes, S reduced, and R a canonical encoding of a
    /// point in the prime-order subgroup (checked last: it is the one that costs a scalar multiplication).
    public static func isWellFormedSignature<C: Collection>(_ signature: C) -> Bool where C.Element == UInt8 {
        let s = Array(signature)
        guard s.count == 64 else { return false }
        let r = s[0..<32], scalar = s[32..<64]
        return isCanonicalPoint(r) && !isSmallOrder(r) && isReducedScalar(scalar) && Edwards25519.isInPrimeOrderSubgroup(r)
    }
}

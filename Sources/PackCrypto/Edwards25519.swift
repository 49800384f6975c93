/// Just enough edwards25519 arithmetic, in pure Swift, to decide two things about a 32-byte point encoding before any
/// crypto backend sees it: whether it decodes to a point on the curve at all, and whether that point lies in the
/// prime-order subgroup ([L]P is the identity), i.e. has no small-order component.
///
/// Why: Ed25519 verifiers differ on points with a small-order component. "Cofactorless" ones (OpenSSL, Go, ref10)
/// check [S]B = R + [k]A; "cofactored" ones check [8][S]B = [8]R + [8][k]A; the two disagree exactly when R or A
/// carries a small-order component that does not cancel (C2SP CCTV's `low_order_residue`). Apple does not document
/// which one CryptoKit uses. Honestly made keys and signatures never carry such a component (A = [a]B and R = [r]B
/// lie in the subgroup), so refusing them changes nothing for honest input and makes every backend's verdict the
/// same on all the rest, whatever its formula. Public data only: nothing here needs to run in constant time.
enum Edwards25519 {
    /// True when `encoding` (32 bytes, little-endian y with x's sign in the top bit) decodes to a curve point.
    static func isOnCurve<C: Collection>(_ encoding: C) -> Bool where C.Element == UInt8 {
        Point(decoding: Array(encoding)) != nil
    }

    /// True when `encoding` decodes to a curve point in the prime-order subgroup (the identity included); false for
    /// points with a small-order component and for encodings that are not points at all.
    static func isInPrimeOrderSubgroup<C: Collection>(_ encoding: C) -> Bool where C.Element == UInt8 {
        problem(with: encoding) == nil
    }

    /// Why `encoding` is not a point of the prime-order subgroup, or nil when it is.
    static func problem<C: Collection>(with encoding: C) -> String? where C.Element == UInt8 {
        guard let point = Point(decoding: Array(encoding)) else { return "not a point on the curve" }
        if !point.multiplied(byBigEndianBits: groupOrderBits).isIdentity {
            return "a point with a small-order component, which no honestly made key or signature has"
        }
        return nil
    }

    /// L = 2^252 + 27742317777372353535851937790883648493, most significant bit first (253 bits).
    static let groupOrderBits: [Bool] = {
        let le = Ed25519Encoding.groupOrder
        var bits: [Bool] = []
        for byte in le.reversed() { for i in stride(from: 7, through: 0, by: -1) { bits.append(byte >> UInt8(i) & 1 == 1) } }
        return Array(bits.drop { !$0 })
    }()
}

/// An element of GF(2^255 − 19) in five 51-bit limbs. Every operation leaves its limbs below 2^51 + 2^15 (carried,
/// not fully reduced); `canonical` reduces below p for comparisons.
struct FieldElement: Equatable {
    var l: (UInt64, UInt64, UInt64, UInt64, UInt64)

    static let mask: UInt64 = (1 << 51) - 1
    static let zero = FieldElement(l: (0, 0, 0, 0, 0))
    static let one = FieldElement(l: (1, 0, 0, 0, 0))
    /// d = −121665/121666, the curve constant.
    static let d = FieldElement(hex: "a3785913ca4deb75abd841414d0a700098e879777940c78c73fe6f2bee6c0352")
    /// 2d, used by point addition.
    static let d2 = FieldElement(hex: "59f1b226949bd6eb56b183829a14e00030d1f3eef2808e19e7fcdf56dcd90624")
    /// A square root of −1 (2^((p−1)/4)).
    static let sqrtMinusOne = FieldElement(hex: "b0a00e4a271beec478e42fad0618432fa7d7fb3d99004d2b0bdfc14f8024832b")

    init(l: (UInt64, UInt64, UInt64, UInt64, UInt64)) { self.l = l }

    /// The 255 low bits of 32 little-endian bytes (bit 255, the sign of x in a point encoding, is dropped).
    init(bytes b: [UInt8]) {
        precondition(b.count == 32)
        func word(_ i: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(b[i * 8 + $1]) << UInt64(8 * $1) } }
        let (w0, w1, w2, w3) = (word(0), word(1), word(2), word(3))
        l = (w0 & Self.mask, (w0 >> 51 | w1 << 13) & Self.mask, (w1 >> 38 | w2 << 26) & Self.mask,
             (w2 >> 25 | w3 << 39) & Self.mask, (w3 >> 12) & Self.mask)
    }

    init(hex: String) { self.init(bytes: Hex.decode(hex)!) }

    static func == (a: FieldElement, b: FieldElement) -> Bool {
        let x = a.canonical.l, y = b.canonical.l
        return x.0 == y.0 && x.1 == y.1 && x.2 == y.2 && x.3 == y.3 && x.4 == y.4
    }

    var isZero: Bool { self == .zero }
    /// The low bit of the fully reduced value: x's "sign" in a point encoding.
    var isNegative: Bool { canonical.l.0 & 1 == 1 }

    /// Carries each limb's excess into the next, the top one's times 19 (2^255 ≡ 19) into the lowest.
    private static func carried(_ t: (UInt64, UInt64, UInt64, UInt64, UInt64)) -> FieldElement {
        var (a, b, c, d, e) = t
        b += a >> 51; a &= mask
        c += b >> 51; b &= mask
        d += c >> 51; c &= mask
        e += d >> 51; d &= mask
        a += (e >> 51) * 19; e &= mask
        b += a >> 51; a &= mask
        return FieldElement(l: (a, b, c, d, e))
    }

    /// The unique representative below p.
    var canonical: FieldElement {
        // Carry until every limb is below 2^51 (a carry can leave the second limb at 2^51; twice more settles it),
        // so the value is below 2^255 and at most one p needs subtracting.
        var r = Self.carried(l)
        while r.l.0 > Self.mask || r.l.1 > Self.mask || r.l.2 > Self.mask || r.l.3 > Self.mask || r.l.4 > Self.mask {
            r = Self.carried(r.l)
        }
        var (a, b, c, d, e) = r.l
        // q = 1 exactly when the value is ≥ p (adding 19 carries out of bit 255).
        var q = (a + 19) >> 51
        q = (b + q) >> 51
        q = (c + q) >> 51
        q = (d + q) >> 51
        q = (e + q) >> 51
        a += 19 * q
        b += a >> 51; a &= Self.mask
        c += b >> 51; b &= Self.mask
        d += c >> 51; c &= Self.mask
        e += d >> 51; d &= Self.mask
        e &= Self.mask
        return FieldElement(l: (a, b, c, d, e))
    }

    static func + (x: FieldElement, y: FieldElement) -> FieldElement {
        carried((x.l.0 + y.l.0, x.l.1 + y.l.1, x.l.2 + y.l.2, x.l.3 + y.l.3, x.l.4 + y.l.4))
    }

    /// x − y as x + 4p − y, so no limb goes below zero (y's limbs are below 2^51 + 2^15 < 4p's).
    static func - (x: FieldElement, y: FieldElement) -> FieldElement {
        let p4low: UInt64 = 0x1F_FFFF_FFFF_FFB4, p4: UInt64 = 0x1F_FFFF_FFFF_FFFC
        return carried((x.l.0 + p4low - y.l.0, x.l.1 + p4 - y.l.1, x.l.2 + p4 - y.l.2, x.l.3 + p4 - y.l.3, x.l.4 + p4 - y.l.4))
    }

    static prefix func - (x: FieldElement) -> FieldElement { .zero - x }

    static func * (x: FieldElement, y: FieldElement) -> FieldElement {
        let (a0, a1, a2, a3, a4) = x.l, (b0, b1, b2, b3, b4) = y.l
        let (s1, s2, s3, s4) = (b1 * 19, b2 * 19, b3 * 19, b4 * 19)
        // Each sum is below 5 · 2^52 · 2^56.3 < 2^111: a 128-bit accumulator (high, low) holds it.
        let r0 = Wide(a0, b0) + Wide(a1, s4) + Wide(a2, s3) + Wide(a3, s2) + Wide(a4, s1)
        var r1 = Wide(a0, b1) + Wide(a1, b0) + Wide(a2, s4) + Wide(a3, s3) + Wide(a4, s2)
        var r2 = Wide(a0, b2) + Wide(a1, b1) + Wide(a2, b0) + Wide(a3, s4) + Wide(a4, s3)
        var r3 = Wide(a0, b3) + Wide(a1, b2) + Wide(a2, b1) + Wide(a3, b0) + Wide(a4, s4)
        var r4 = Wide(a0, b4) + Wide(a1, b3) + Wide(a2, b2) + Wide(a3, b1) + Wide(a4, b0)
        r1 = r1 + r0.high51
        r2 = r2 + r1.high51
        r3 = r3 + r2.high51
        r4 = r4 + r3.high51
        // r4's carry is below 2^60, so times 19 it still fits in 64 bits.
        return carried((r0.low51 + r4.high51 * 19, r1.low51, r2.low51, r3.low51, r4.low51))
    }

    var squared: FieldElement { self * self }

    /// self^e for an exponent given most significant bit first.
    func power(_ bits: [Bool]) -> FieldElement {
        var r = FieldElement.one
        for bit in bits {
            r = r.squared
            if bit { r = r * self }
        }
        return r
    }

    /// (p − 5)/8 = 2^252 − 3: 250 ones, then 0, 1.
    static let pMinus5Over8: [Bool] = [Bool](repeating: true, count: 250) + [false, true]

    /// A 128-bit unsigned value as (high, low) 64-bit halves; only what the multiplication above needs.
    private struct Wide {
        var high: UInt64
        var low: UInt64

        init(high: UInt64, low: UInt64) {
            self.high = high
            self.low = low
        }

        init(_ a: UInt64, _ b: UInt64) {
            let p = a.multipliedFullWidth(by: b)
            self.init(high: p.high, low: p.low)
        }

        static func + (x: Wide, y: Wide) -> Wide {
            let (low, carry) = x.low.addingReportingOverflow(y.low)
            return Wide(high: x.high &+ y.high &+ (carry ? 1 : 0), low: low)
        }

        static func + (x: Wide, y: UInt64) -> Wide { x + Wide(high: 0, low: y) }

        var low51: UInt64 { low & FieldElement.mask }
        /// The value shifted right by 51 bits (below 2^64 for every sum above).
        var high51: UInt64 { high << 13 | low >> 51 }
    }
}

/// A point in extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, xy = T/Z, on −x² + y² = 1 + d x² y².
struct Point {
    var x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement

    static let identity = Point(x: .zero, y: .one, z: .one, t: .zero)

    init(x: FieldElement, y: FieldElement, z: FieldElement, t: FieldElement) {
        self.x = x
        self.y = y
        self.z = z
        self.t = t
    }

    /// Decodes a 32-byte encoding (RFC 8032 §5.1.3), or nil when no curve point has it. Accepts a y ≥ p as its value
    /// mod p; `Ed25519Encoding.isCanonicalPoint` refuses those encodings before this is asked.
    init?(decoding b: [UInt8]) {
        guard b.count == 32 else { return nil }
        let y = FieldElement(bytes: b)
        let yy = y.squared
        let u = yy - .one                      // y² − 1
        let v = FieldElement.d * yy + .one     // d y² + 1
        let v3 = v.squared * v
        // x = u v³ (u v⁷)^((p−5)/8), a square root of u/v if there is one.
        var x = u * v3 * (u * v3.squared * v).power(FieldElement.pMinus5Over8)
        let check = v * x.squared
        if check == u {
        } else if check == -u {
            x = x * FieldElement.sqrtMinusOne
        } else {
            return nil
        }
        let sign = b[31] >> 7 == 1
        if x.isZero && sign { return nil }
        if x.isNegative != sign { x = -x }
        self.init(x: x, y: y, z: .one, t: x * y)
    }

    var isIdentity: Bool { x.isZero && y == z }

    /// P + Q (add-2008-hwcd-3, a = −1).
    static func + (p: Point, q: Point) -> Point {
        let a = (p.y - p.x) * (q.y - q.x)
        let b = (p.y + p.x) * (q.y + q.x)
        let c = p.t * FieldElement.d2 * q.t
        let zz = p.z * q.z
        let d = zz + zz
        let e = b - a, f = d - c, g = d + c, h = b + a
        return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// 2P (dbl-2008-hwcd, a = −1).
    var doubled: Point {
        let a = x.squared, b = y.squared
        let zz = z.squared
        let c = zz + zz
        let h = -(a + b)
        let e = (x + y).squared + h            // (X+Y)² − A − B
        let g = b - a
        let f = g - c
        return Point(x: e * f, y: g * h, z: f * g, t: e * h)
    }

    /// [n]P for n given most significant bit first.
    func multiplied(byBigEndianBits bits: [Bool]) -> Point {
        var r = Point.identity
        for bit in bits {
            r = r.doubled
            if bit { r = r + self }
        }
        return r
    }
}

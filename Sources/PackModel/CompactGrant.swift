#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto

/// A short access code a person can type at a museum desk: 9 bytes of bit-packed claims and one 64-byte Ed25519
/// signature by a grant key, as 117 Crockford base32 characters printed in groups of five (140 characters in all).
///
/// Claims, big-endian: format version (3 bits, 1), device-bound (1 bit), grant id (32 bits, random), notBefore in
/// whole hours since 2025-01-01T00:00:00Z (20 bits), duration in whole hours (16 bits, at least 1). The product and the
/// device are not in the code but are signed (`signedMessage`): the verifier tries each product the pack sells and the
/// device it runs on, and a signature that matches names the product. A long `PTG1.` code says the same things.
public struct CompactGrant: Equatable, Sendable {
    /// The format version in a code's first 3 bits; a code of another version is refused as unreadable.
    public static let formatVersion = 1
    /// The DSSE payload type the signature covers, so a code signature can never pass as any other document's.
    public static let payloadType = "application/vnd.packtool.grant-code+v1"
    /// 2025-01-01T00:00:00Z, the origin of `notBeforeHours`.
    public static let epoch = 1_735_689_600
    /// Bytes of bit-packed claims at the start of a code.
    public static let claimsSize = 9
    /// Bytes of the Ed25519 signature that follows the claims.
    public static let signatureSize = 64
    /// Characters in a code without its separators: 73 bytes, 5 bits a character.
    public static let characterCount = ((claimsSize + signatureSize) * 8 + 4) / 5
    /// The largest `notBeforeHours` the 20-bit field holds (about 119 years after 2025-01-01).
    public static let maxNotBeforeHours = (1 << 20) - 1
    /// The longest duration in hours the 16-bit field holds (about 7.5 years).
    public static let maxDurationHours = (1 << 16) - 1

    /// A code that cannot be made or read, and why.
    public struct Problem: Error, Equatable, CustomStringConvertible {
        /// What is wrong, in words a desk clerk or a user can act on.
        public var message: String
        /// A problem described by `message`.
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// The grant's random id, by which a revocation list withdraws the code (shown as ``idText``).
    public var id: UInt32
    /// Whether the code opens the pack only on the device it was issued for (the device id is signed, not carried).
    public var deviceBound: Bool
    /// Start of validity in whole hours since 2025-01-01T00:00:00Z (``epoch``).
    public var notBeforeHours: Int
    /// Length of validity in whole hours, at least 1.
    public var durationHours: Int

    /// Claims as numbers; refuses values the bit fields cannot hold.
    public init(id: UInt32, deviceBound: Bool, notBeforeHours: Int, durationHours: Int) throws {
        guard (0...Self.maxNotBeforeHours).contains(notBeforeHours) else {
            throw Problem("a short code starts between 2025-01-01 and \(Timestamp.format(Self.date(hours: Self.maxNotBeforeHours)))")
        }
        guard (1...Self.maxDurationHours).contains(durationHours) else {
            throw Problem("a short code lasts 1 to \(Self.maxDurationHours) whole hours, not \(durationHours)")
        }
        self.id = id
        self.deviceBound = deviceBound
        self.notBeforeHours = notBeforeHours
        self.durationHours = durationHours
    }

    /// Claims from a window [notBefore, notAfter); both must fall on whole hours (UTC).
    public init(id: UInt32, deviceBound: Bool, notBefore: Date, notAfter: Date) throws {
        let from = notBefore.timeIntervalSince1970, to = notAfter.timeIntervalSince1970
        guard from.rounded(.down) == from, to.rounded(.down) == to, abs(from) < 1e15, abs(to) < 1e15,
              Int(from) % 3600 == 0, Int(to) % 3600 == 0 else {
            throw Problem("a short code's times are whole hours (e.g. 2026-06-01T09:00:00Z)")
        }
        guard Int(from) >= Self.epoch else { throw Problem("a short code cannot start before 2025-01-01T00:00:00Z") }
        try self.init(id: id, deviceBound: deviceBound, notBeforeHours: (Int(from) - Self.epoch) / 3600, durationHours: (Int(to) - Int(from)) / 3600)
    }

    /// Reads the 9 claim bytes; refuses another length, another format version or a zero duration.
    public init(claims: [UInt8]) throws {
        guard claims.count == Self.claimsSize else { throw Problem("short code claims are \(Self.claimsSize) bytes, not \(claims.count)") }
        var reader = BitReader(claims)
        let version = reader.read(3)
        guard version == Self.formatVersion else { throw Problem("short code format \(version) is not supported (this app reads format \(Self.formatVersion))") }
        let bound = reader.read(1) == 1
        let id = UInt32(reader.read(32))
        let hours = reader.read(20)
        let duration = reader.read(16)
        try self.init(id: id, deviceBound: bound, notBeforeHours: hours, durationHours: duration)
    }

    /// The 9 claim bytes.
    public var claims: [UInt8] {
        Self.pack(version: Self.formatVersion, deviceBound: deviceBound, id: id, hours: notBeforeHours, duration: durationHours)
    }

    /// The grant id as revocation lists and messages name it: 8 lower-case hex digits.
    public var idText: String { Hex.encode([UInt8(id >> 24), UInt8((id >> 16) & 0xFF), UInt8((id >> 8) & 0xFF), UInt8(id & 0xFF)]) }

    /// The first instant the code is valid.
    public var notBefore: Date { Self.date(hours: notBeforeHours) }
    /// The instant the code stops being valid (exclusive).
    public var notAfter: Date { Self.date(hours: notBeforeHours + durationHours) }

    /// What the signature covers: DSSE PAE over `claims || 0x00 || product || 0x00 || device` (device empty when the
    /// code is not bound to one).
    public func signedMessage(product: String, device: String?) -> [UInt8] {
        var body = claims
        body.append(0)
        body += Array(product.utf8)
        body.append(0)
        if deviceBound { body += Array((device ?? "").utf8) }
        return DSSE.preAuthenticationEncoding(payloadType: Self.payloadType, payload: body)
    }

    /// The code as a grant document, once its signature has matched `product` (and `device` when bound): the one shape
    /// access decisions check. A short code carries no issue time or note.
    public func grant(product: String, device: String?) -> GrantDocument {
        GrantDocument(id: idText, products: [product], notBefore: Timestamp.format(notBefore), notAfter: Timestamp.format(notAfter),
                      issued: "", note: "", device: deviceBound ? device : nil)
    }

    /// The printed code: claims and signature in base32, in groups of five joined by `-`.
    public func text(signature: [UInt8]) throws -> String {
        guard signature.count == Self.signatureSize else { throw Problem("an Ed25519 signature is 64 bytes, not \(signature.count)") }
        let plain = Array(CrockfordBase32.encode(claims + signature).utf8)
        return stride(from: 0, to: plain.count, by: 5).map { String(decoding: plain[$0..<min($0 + 5, plain.count)], as: UTF8.self) }.joined(separator: "-")
    }

    /// Reads a typed or scanned code (any case, separators ignored, look-alikes mapped): its claims and signature.
    /// The signature is not checked here; `AccessDecider` does that against the pack's products and the root's keys.
    public static func decode(_ text: String) throws -> (grant: CompactGrant, signature: [UInt8]) {
        guard text.utf8.count <= 1024 else { throw Problem("too long for a short code") }
        guard let bytes = CrockfordBase32.decode(text) else {
            throw Problem("not a short code (a character that is not a code character, or a damaged last character)")
        }
        guard bytes.count == claimsSize + signatureSize else {
            throw Problem("a short code has \(characterCount) characters; this one has the length of \(bytes.count) bytes")
        }
        let grant = try CompactGrant(claims: Array(bytes[0..<claimsSize]))
        return (grant, Array(bytes[claimsSize...]))
    }

    static func date(hours: Int) -> Date { Date(timeIntervalSince1970: Double(epoch + hours * 3600)) }

    static func pack(version: Int, deviceBound: Bool, id: UInt32, hours: Int, duration: Int) -> [UInt8] {
        var writer = BitWriter()
        writer.write(version, 3)
        writer.write(deviceBound ? 1 : 0, 1)
        writer.write(Int(id), 32)
        writer.write(hours, 20)
        writer.write(duration, 16)
        return writer.bytes
    }
}

/// Big-endian bit fields written into bytes.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private var used = 0

    mutating func write(_ value: Int, _ width: Int) {
        for i in stride(from: width - 1, through: 0, by: -1) {
            if used % 8 == 0 { bytes.append(0) }
            if (value >> i) & 1 == 1 { bytes[bytes.count - 1] |= UInt8(0x80 >> (used % 8)) }
            used += 1
        }
    }
}

/// Big-endian bit fields read from bytes.
struct BitReader {
    private let bytes: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func read(_ width: Int) -> Int {
        var v = 0
        for _ in 0..<width {
            let bit = (bytes[position / 8] >> (7 - position % 8)) & 1
            v = (v << 1) | Int(bit)
            position += 1
        }
        return v
    }
}

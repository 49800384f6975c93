#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A DSSE envelope (Dead Simple Signing Envelope v1): every signed document packtool writes takes this form.
///
/// Signatures cover the PAE of the payload type and the payload bytes, so a signature over one document type can
/// never be replayed as another. Verifiers check the signature over the exact payload bytes, then parse those bytes.
public struct DSSEEnvelope: Codable, Equatable, Sendable {
    /// One signature. `keyid` is only a hint for finding the key; it is never trusted on its own.
    public struct Signature: Codable, Equatable, Sendable {
        /// Lowercase hex SHA-256 of the signing key's raw bytes.
        public var keyid: String
        /// The 64-byte Ed25519 signature over the envelope's PAE, standard base64.
        public var sig: String

        /// A signature by the key `keyid` (a hint), `sig` in base64.
        public init(keyid: String, sig: String) {
            self.keyid = keyid
            self.sig = sig
        }
    }

    /// Says what the payload is (``PackModel``'s `PayloadType`); covered by every signature.
    public var payloadType: String
    /// The payload, standard base64 with padding.
    public var payload: String
    /// Every signature, in any order; a verifier counts each distinct trusted key once.
    public var signatures: [Signature]

    /// An envelope of `payload` (standard base64) and its signatures.
    public init(payloadType: String, payload: String, signatures: [Signature]) {
        self.payloadType = payloadType
        self.payload = payload
        self.signatures = signatures
    }

    /// The decoded payload bytes. Throws when `payload` is not base64.
    public func payloadBytes() throws -> [UInt8] {
        guard let data = DSSE.decodeBase64(payload) else {
            throw CryptoError(code: "dsse.base64", message: "the envelope's payload is not valid base64")
        }
        return [UInt8](data)
    }

    /// The distinct key ids among `candidates` (id → raw Ed25519 public key) whose signature over this envelope's
    /// exact bytes `isValid` accepts: the one count behind every threshold (PackTrust's `SignatureThreshold`, a
    /// sign-off's reviewer, `packtool inspect`).
    ///
    /// Each key counts at most once however many signatures name it, so thresholds cannot be met by repeating a
    /// signature. The keyid is a hint: the hinted key is tried first, then every other candidate in key-id order.
    /// Malformed signatures simply do not count.
    public func signers(among candidates: [String: [UInt8]],
                        isValid: (_ signature: [UInt8], _ publicKey: [UInt8], _ message: [UInt8]) -> Bool = DSSEEnvelope.ed25519) -> Set<String> {
        guard let body = try? payloadBytes() else { return [] }
        let pae = DSSE.preAuthenticationEncoding(payloadType: payloadType, payload: body)
        var verified = Set<String>()
        for signature in signatures {
            guard let sig = DSSE.decodeBase64(signature.sig).map([UInt8].init), sig.count == 64 else { continue }
            let order = (candidates[signature.keyid] == nil ? [] : [signature.keyid]) + candidates.keys.sorted().filter { $0 != signature.keyid }
            for id in order where !verified.contains(id) {
                if isValid(sig, candidates[id]!, pae) {
                    verified.insert(id)
                    break
                }
            }
        }
        return verified
    }

    /// The ids of `keys` that signed this envelope (`signers(among:)` for keys already in hand).
    /// The keys are used as they are — each was checked (on the curve, in the prime-order subgroup) when it was made —
    /// rather than made again from their bytes for every signature, which repeated that check each time.
    public func signers(trusting keys: [Ed25519PublicKey]) -> Set<String> {
        let byBytes = Dictionary(keys.map { ($0.rawRepresentation, $0) }, uniquingKeysWith: { first, _ in first })
        return signers(among: Dictionary(keys.map { ($0.keyID, $0.rawRepresentation) }, uniquingKeysWith: { first, _ in first })) { signature, raw, message in
            byBytes[raw]?.isValidSignature(signature, for: message) ?? false
        }
    }

    /// Ed25519 verification by this build's backend, the default check of `signers(among:)`.
    public static func ed25519(_ signature: [UInt8], _ publicKey: [UInt8], _ message: [UInt8]) -> Bool {
        guard let key = try? Ed25519PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }

    /// Parses an envelope, refusing anything larger than `maxBytes` before decoding.
    public static func parse(_ data: Data, maxBytes: Int = 16 << 20) throws -> DSSEEnvelope {
        guard data.count <= maxBytes else {
            throw CryptoError(code: "dsse.size", message: "the envelope is \(data.count) bytes, over the \(maxBytes)-byte limit")
        }
        // A key where a signed document belongs is an easy slip (root.pem beside root/1.root.json): say so.
        if data.starts(with: Array("-----BEGIN ".utf8)) {
            throw CryptoError(code: "dsse.json", message: "not a DSSE envelope: this is a PEM key, not a signed document")
        }
        do {
            return try JSONDecoder().decode(DSSEEnvelope.self, from: data)
        } catch {
            throw CryptoError(code: "dsse.json", message: "not a DSSE envelope: \(DSSE.describe(error))")
        }
    }
}

/// DSSE helpers shared by signing and verifying.
public enum DSSE {
    /// The DSSE v1 pre-authentication encoding: `"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body`, where LEN is the
    /// ASCII decimal byte length. This is exactly what signatures cover.
    public static func preAuthenticationEncoding(payloadType: String, payload: [UInt8]) -> [UInt8] {
        let type = Array(payloadType.utf8)
        var out = Array("DSSEv1 \(type.count) ".utf8)
        out += type
        out += Array(" \(payload.count) ".utf8)
        out += payload
        return out
    }

    /// Decodes standard or URL-safe base64 (DSSE verifiers must accept both alphabets), with or without padding, and
    /// nothing looser: a mixed alphabet, wrong or misplaced padding, whitespace, other bytes or non-zero unused bits
    /// give nil, so a signed document or code is read from one canonical text only (`StrictBase64`).
    public static func decodeBase64(_ text: String) -> Data? {
        StrictBase64.decode(text).map { Data($0) }
    }

    /// A short, readable account of a JSON decoding error.
    static func describe(_ error: Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, _): return "missing field \"\(key.stringValue)\""
        case DecodingError.dataCorrupted(let ctx) where ctx.codingPath.isEmpty:
            return "the file is not JSON"
        case DecodingError.typeMismatch(_, let ctx), DecodingError.valueNotFound(_, let ctx),
             DecodingError.dataCorrupted(let ctx):
            let path = ctx.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? ctx.debugDescription : "\(path): \(ctx.debugDescription)"
        default: return "\(error)"
        }
    }
}

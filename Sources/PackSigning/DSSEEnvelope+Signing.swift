#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto

/// Signing DSSE envelopes: publisher-side only, so it lives here and not beside the parser the client uses.
extension DSSEEnvelope {
    /// Signs `payload` as `payloadType` with every key given, in order.
    public init(signing payload: [UInt8], as payloadType: String, with keys: [Ed25519PrivateKey]) throws {
        self.init(payloadType: payloadType, payload: Data(payload).base64EncodedString(), signatures: [])
        for key in keys { try addSignature(with: key) }
    }

    /// Adds one more signature over the same payload (for thresholds of several keys).
    public mutating func addSignature(with key: Ed25519PrivateKey) throws {
        let pae = DSSE.preAuthenticationEncoding(payloadType: payloadType, payload: try payloadBytes())
        let sig = try key.signature(for: pae)
        signatures.append(Signature(keyid: key.publicKey.keyID, sig: Data(sig).base64EncodedString()))
    }

    /// The envelope as a file: pretty-printed canonical JSON (`CanonicalEncoder`), so the same envelope is always the
    /// same bytes on every platform — the index binds a manifest's envelope by its hash.
    public func jsonData() throws -> Data {
        Data(try CanonicalEncoder(pretty: true).encode(self)) + Data("\n".utf8)
    }
}

import Foundation
import PackCrypto
import PackMedia

/// The parsers a hostile file reaches, each as a libFuzzer target: one input in, no crash, no hang, no leak.
enum FuzzTargets {
    static let all: [String: ([UInt8]) -> Void] = [
        "json": { _ = JSONParser().parse($0) },
        "webvtt": { _ = WebVTTParser().parse($0) },
        "heif": { _ = HEIFProbe().probe(ByteSource(bytes: $0)) },
        "mp4": { _ = MP4AudioProbe().probe(ByteSource(bytes: $0)) },
        "envelope": { bytes in
            // Parse, then verify against a fixed key: exercises base64, PAE and the signature path on junk.
            guard let envelope = try? DSSEEnvelope.parse(Data(bytes)) else { return }
            _ = envelope.verifiedKeyIDs(trusting: [fixedKey])
        },
    ]

    /// RFC 8032 TEST 1's public key.
    static let fixedKey = try! Ed25519PublicKey(rawRepresentation: Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!)
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackCrypto
import PackMedia

/// `inspect` for DSSE envelopes: payload type, signers' key ids, the payload, and verification against given keys.
enum EnvelopeInspection {
    struct Entry: Encodable {
        var payloadType: String
        var keyIDs: [String]
        var payload: AnyEncodable?
        var payloadBase64: String?
        /// Key ids of the given keys that produced a valid signature (present only when keys were given).
        var verifiedBy: [String]?
    }

    static func inspect(_ url: URL, data: Data, isList: Bool, keys: [Ed25519PublicKey]) throws -> Inspection {
        let envelopes: [DSSEEnvelope]
        do {
            envelopes = isList ? try JSONDecoder().decode([DSSEEnvelope].self, from: data) : [try DSSEEnvelope.parse(data)]
        } catch {
            throw CommandLineError.failure("\(ShownPath.of(url)): not a DSSE envelope: \(error)")
        }
        var entries: [Entry] = []
        var text = "\(ShownPath.of(url)): \(envelopes.count) signed envelope\(envelopes.count == 1 ? "" : "s")\n"
        var ok = true
        for (i, envelope) in envelopes.enumerated() {
            let body = try? envelope.payloadBytes()
            let json = body.flatMap { JSONParser().parse($0).root }
            var entry = Entry(payloadType: envelope.payloadType, keyIDs: envelope.signatures.map(\.keyid),
                              payload: json.map { AnyEncodable($0) }, payloadBase64: json == nil ? envelope.payload : nil, verifiedBy: nil)
            text += "  [\(i)] \(envelope.payloadType), signed by \(envelope.signatures.map(\.keyid).joined(separator: ", "))\n"
            if body == nil { text += "      payload is not valid base64\n"; ok = false }
            if let body, json != nil { text += "      payload: \(String(decoding: body, as: UTF8.self).prefix(400))\n" }
            if !keys.isEmpty {
                let verified = envelope.signers(trusting: keys)
                entry.verifiedBy = verified.sorted()
                text += verified.isEmpty ? "      does NOT verify against the given key\(keys.count == 1 ? "" : "s")\n" : "      verifies with \(verified.sorted().joined(separator: ", "))\n"
                ok = ok && !verified.isEmpty
            }
            entries.append(entry)
        }
        return Inspection(kind: "dsse", file: ShownPath.of(url), ok: ok, text: text, value: entries)
    }
}


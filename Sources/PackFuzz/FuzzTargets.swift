import Foundation
import PackAuthoring
import PackCrypto
import PackHTTP
import PackMedia
import PackModel
import PackTrust
import PackVerify

/// The parsers a hostile file reaches, each as a libFuzzer target: one input in, no crash, no hang, no leak.
enum FuzzTargets {
    static let all: [String: ([UInt8]) -> Void] = [
        "json": { bytes in
            // Parse, then write the tree back as text (as lint does to decode one section) and parse that: the text
            // must be a fixed point, or a section would be decoded from something other than what the author wrote;
            // and it must be plain JSON, whatever slips the parser read past in the input.
            guard let root = JSONParser().parse(bytes).root else { return }
            let text = root.jsonText
            let again = JSONParser().parse(Array(text.utf8))
            precondition(again.root?.jsonText == text, "jsonText does not parse back to itself")
            precondition(again.issues.isEmpty, "jsonText is not plain JSON: \(again.issues.map(\.message))")
        },
        "csv": { bytes in
            // A route sheet: what it reads must be written back as text that reads the same (export then import is exact).
            guard let table = try? CSVTable.parse(bytes) else { return }
            precondition((try? CSVTable.parse(Array(table.text.utf8))) == table, "CSV text does not read back as the table")
        },
        "webvtt": { _ = WebVTTParser().parse($0) },
        "heif": { _ = HEIFProbe().probe(ByteSource(bytes: $0)) },
        "mp4": { _ = MP4AudioProbe().probe(ByteSource(bytes: $0)) },
        "envelope": { bytes in
            // Parse, then verify against a fixed key: exercises base64, PAE and the signature path on junk.
            guard let envelope = try? DSSEEnvelope.parse(Data(bytes)) else { return }
            _ = envelope.signers(trusting: [fixedKey])
            // The client's path: repeated-key scan of envelope and payload, threshold under a one-key root, decode.
            let root = RootDocument(version: 1, expires: "2099-01-01T00:00:00Z", keys: [fixedKey.keyID: .init(public: Hex.encode(fixedKey.rawRepresentation))],
                                    roles: ["manifest": .init(keyids: [fixedKey.keyID], threshold: 1)])
            _ = try? SignedDocument().admit(Data(bytes), as: Manifest.self, profile: .install, context: AdmissionContext(root: root, now: 0))
        },
        "code": { bytes in
            // What an access code and a StoreKit purchase bring into an access decision: RFC 3339 times (parsed by
            // hand), base64 text holding a DSSE envelope, and short codes (base32 text and bit-packed claims), which
            // must read back as the text they print.
            let text = String(decoding: bytes, as: UTF8.self)
            if let date = Timestamp.parse(text) { _ = Timestamp.format(date) }
            if let date = Timestamp.parseDateOrDateTime(text) { _ = Timestamp.format(date) }
            if let (grant, signature) = try? CompactGrant.decode(text) {
                guard let again = try? CompactGrant.decode(try grant.text(signature: signature)), again.grant == grant, again.signature == signature else {
                    fatalError("a short code did not read back as the text it prints")
                }
                _ = grant.signedMessage(product: "city", device: "phone")
            }
            if let data = DSSE.decodeBase64(text), let envelope = try? DSSEEnvelope.parse(data, maxBytes: 8192) {
                _ = envelope.signers(trusting: [fixedKey])
            }
        },
        "http": { bytes in
            // What a server sends the updater: a response head, then a chunked body. The body must decode the same
            // however the network splits it; a difference is a finding (the trap makes libFuzzer report it).
            if let end = (0..<max(0, bytes.count - 3)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10 }),
               let head = try? ResponseHead.parse(Array(bytes[...(end + 3)])) {
                _ = (head.contentLength, head.rangeStart, head.isChunked)
            }
            let whole = decodeChunked(bytes, pieces: bytes.count), single = decodeChunked(bytes, pieces: 1), sevens = decodeChunked(bytes, pieces: 7)
            precondition(whole.map(\.body) == single.map(\.body) && whole.map(\.body) == sevens.map(\.body)
                         && whole.map(\.done) == single.map(\.done) && whole.map(\.done) == sevens.map(\.done),
                         "chunked decoding depends on how the input was split")
        },
        "tar": { bytes in
            // The client's archive reader on junk: every header, every path through the install's path rules, every
            // file's data read to the end. Errors are the expected outcome; a crash, hang or leak is the finding.
            guard let url = archiveFile(holding: bytes), var reader = try? StrictTarReader(url: url) else { return }
            var paths = PathSafety()
            while let header = try? reader.next() {
                try? paths.admit(header.path)
                guard (try? reader.read { _ in }) != nil else { return }
            }
        },
    ]

    /// The chunked decoder's output and end state for `bytes` fed `pieces` bytes at a time; nil when it refuses them.
    static func decodeChunked(_ bytes: [UInt8], pieces: Int) -> (body: [UInt8], done: Bool)? {
        var decoder = ChunkedDecoder()
        var body: [UInt8] = []
        var i = 0
        do {
            while i < bytes.count {
                let piece = Array(bytes[i..<min(bytes.count, i + max(1, pieces))])
                try piece.withUnsafeBytes { try decoder.feed($0) { body.append(contentsOf: $0) } }
                i += max(1, pieces)
            }
        } catch { return nil }
        return (body, decoder.isDone)
    }

    /// The reader works on a file (the installer reads entries' data by offset, in parallel), so each input is
    /// written to one scratch file, replaced every time.
    static func archiveFile(holding bytes: [UInt8]) -> URL? {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("packfuzz-\(getpid()).tar")
        return (try? Data(bytes).write(to: url)) == nil ? nil : url
    }

    /// RFC 8032 TEST 1's public key.
    static let fixedKey = try! Ed25519PublicKey(rawRepresentation: Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!)
}

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
            // Differential: lint decodes sections straight from the tree (JSONNodeDecoder); whatever it reads must be
            // what JSONDecoder reads from the text.
            agrees(SceneDocument.self, root, text)
            agrees(PackDocument.self, root, text)
            agrees(JSONValue.self, root, text)
            agrees([String: Double].self, root, text)
            agrees([Int64?].self, root, text)
            agrees([Float].self, root, text)
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
        "stream": { bytes in
            // The streamed install's judgement of archive bytes (PackTrust's ArchiveLayout.Check, which the phone's
            // ArchiveStream and `packtool verify` compose): on junk, and on a valid archive with the input written
            // over it at an offset the input's first two bytes choose. The verdict (the failure code, or none, and how
            // many entries verified) must not depend on how the network split the bytes.
            let archive = streamArchive.bytes
            var forged = archive
            if bytes.count > 2 {
                let at = (Int(bytes[0]) << 8 | Int(bytes[1])) % archive.count
                for (i, b) in bytes.dropFirst(2).enumerated() where at + i < forged.count { forged[at + i] = b }
            }
            for input in [bytes, forged] {
                let whole = streamVerdict(input, pieces: max(1, input.count)), ones = streamVerdict(input, pieces: 1)
                let sevens = streamVerdict(input, pieces: 7)
                precondition(whole == ones && whole == sevens, "the archive check depends on how the bytes were split: \(whole) \(ones) \(sevens)")
            }
        },
        "journal": { bytes in
            // A resume journal as a crash (or someone with the state folder) left it: the record (JSON) and the
            // progress file from the input, split at its first newline. Opening it must either resume from a number
            // of entries no larger than the progress file says, or start again; never crash or trust a bad record.
            journalResume(bytes)
        },
    ]

    /// A small valid archive (manifest.json, pack.json, one stop's file) and its layout, for the `stream` target.
    static let streamArchive: (layout: ArchiveLayout, manifestBytes: [UInt8], bytes: [UInt8]) = {
        let manifestBytes = Array(#"{"payload":"e30=","payloadType":"application/vnd.packtool.manifest+json","signatures":[]}"#.utf8)
        let pack = Array(#"{"id":"p"}"#.utf8), story = [UInt8](repeating: 0x41, count: 700)
        func file(_ path: String, _ data: [UInt8]) -> Manifest.File {
            Manifest.File(path: path, size: UInt64(data.count), sha256: Hex.encode(SHA256.hash(data)), mediaType: "application/octet-stream")
        }
        let manifest = Manifest(pack: "p", version: 1, created: "2026-01-01T00:00:00Z", expires: "2027-01-01T00:00:00Z",
                                access: AccessPolicy(freeStops: ["01-a"], products: .init(cityPack: .init(productId: "city"), tripPass: nil)),
                                files: [file("pack.json", pack)],
                                scenes: [Manifest.Scene(id: "01-a", version: 1, digest: String(repeating: "0", count: 64), files: [file("story.vtt", story)])])
        let layout = try! ArchiveLayout(manifest: manifest, manifestBytes: manifestBytes)
        var bytes: [UInt8] = []
        for (entry, data) in zip(layout.entries, [manifestBytes, pack, story]) {
            bytes += entry.header + data + [UInt8](repeating: 0, count: TarEncoding.padding(size: UInt64(data.count)))
        }
        bytes += [UInt8](repeating: 0, count: TarEncoding.trailerBytes)
        precondition(bytes.count == Int(layout.size) && streamVerdict(bytes, pieces: 64, layout: layout, manifestBytes: manifestBytes) == "ok 3",
                     "the fuzz target's own archive does not pass")
        return (layout, manifestBytes, bytes)
    }()

    /// Writes a journal from `bytes` (record up to the first newline, progress after it) into a fresh scratch pack
    /// folder and asks what a resume would skip: a number only when the progress file holds exactly that number.
    static func journalResume(_ bytes: [UInt8]) {
        let split = bytes.firstIndex(of: 0x0A).map { $0 + 1 } ?? bytes.count
        let sha = String(repeating: "a", count: 64), name = InstallJournal.folderName(manifestSHA256: sha)
        let folder = NSTemporaryDirectory() + "packfuzz-journal-\(getpid())"
        FileSystem.removeTree(folder)
        guard let pack = try? RootedFolder(opening: folder, create: true),
              (try? pack.writeAtomically(Data(bytes[..<split]), to: name + ".json")) != nil,
              (try? pack.writeAtomically(Data(bytes[split...]), to: name + ".progress")) != nil,
              (try? pack.ensureFolder(name)) != nil else { return }
        guard let entries = try? InstallJournal.resumableEntries(in: pack, manifestSHA256: sha, version: 1, packID: "p") else { return }
        let progress = Array(bytes[split...])
        precondition(progress.count == 21 && Int(String(decoding: progress.dropLast(), as: UTF8.self)) == entries && entries >= 0,
                     "a resume would skip \(entries) entries, which the progress file does not say")
    }

    /// The check's verdict on `bytes` fed `pieces` bytes at a time: the failure code, or "ok", and the entries verified.
    static func streamVerdict(_ bytes: [UInt8], pieces: Int, layout: ArchiveLayout? = nil, manifestBytes: [UInt8]? = nil) -> String {
        let check = ArchiveLayout.Check(layout: layout ?? streamArchive.layout, manifestBytes: manifestBytes ?? streamArchive.manifestBytes, name: "fuzz.tar")
        do {
            var i = 0
            while i < bytes.count {
                let end = min(bytes.count, i + pieces)
                try bytes[i..<end].withUnsafeBytes { try check.append($0) }
                i = end
            }
            try check.finish()
            return "ok \(check.verifiedEntries)"
        } catch let failure as VerificationFailure {
            return "\(failure.code) \(check.verifiedEntries)"
        } catch {
            return "other \(error)"
        }
    }

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

    /// Traps when JSONNodeDecoder's answer for `type` differs from JSONDecoder's over `text` (the node's own text).
    static func agrees<T: Decodable & Equatable>(_ type: T.Type, _ root: JSONNode, _ text: String) {
        let fromNode = JSONNodeDecoder.decode(T.self, from: root)
        let fromText = try? JSONDecoder().decode(T.self, from: Data(text.utf8))
        precondition(fromNode == fromText, "JSONNodeDecoder read \(T.self) as \(String(describing: fromNode)), JSONDecoder as \(String(describing: fromText))")
    }

    /// The reader works on a file (the installer reads entries' data by offset, in parallel), so each input is
    /// written to one scratch file, replaced every time.
    static func archiveFile(holding bytes: [UInt8]) -> URL? {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("packfuzz-\(getpid()).tar")
        return (try? AtomicFile.write(Data(bytes), to: url)) == nil ? nil : url
    }

    /// RFC 8032 TEST 1's public key.
    static let fixedKey = try! Ed25519PublicKey(rawRepresentation: Hex.decode("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")!)
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackAudio
import PackAuthoring
import PackCrypto
import PackLint
import PackMedia
import PackModel
import PackSigning

/// `packtool inspect FILE`: shows what packtool reads from a file, so support staff and authors see what the tool sees.
enum InspectCommand: Command {
    static let name = "inspect"
    static let summary = "show what packtool reads from a WebVTT, HEIC, m4a, pack/scene JSON or signed file"
    static let help = """
        usage: packtool inspect FILE [--format text|json] [--pub PUBLIC.pub]... [--voice]

        Prints what packtool reads from FILE:
          .vtt              the cues (W3C VTTCue attribute names in JSON), regions, styles and parse errors
          .heic .heif       brands, primary item, stored and displayed size, rotation and properties
          .m4a .mp4         codec, channels, sample rate, timescales and duration; with --voice also where lint
                            hears the voice (decoded, each 20 ms frame judged: each part of the story with
                            its own background, the voice's level over it and what lint can check there; the
                            speech segments; in JSON the frames as a string of 0 and 1)
          pack.json scene.json uncertainty.json
                            the decoded document, or each problem at line:col
          a DSSE envelope (or signoff.json, a list of them)
                            payload type, key ids, the payload, and with --pub whether it verifies
          .pub .pem         a key `packtool key generate` wrote: its id and raw public key (the form
                            pack.json's "reviewers" take); never a private key's secret

        Exit codes: 0 read cleanly (and verified, with --pub), 1 the file has errors or does not verify, 2 usage or I/O.

        """
    static let options: [CommandOption] = [
        .format(),
        CommandOption("--pub", "PUBLIC.pub", "a public key file to verify a DSSE envelope's signatures with; repeatable", aliases: ["--key"]),
        .flag("--voice", "for .m4a and .mp4: also where lint hears the voice (the detector's verdict, segments and frames)"),
    ]
    static let examples = [
        "packtool inspect scenes/royal-mile/pack.json",
        "packtool inspect scenes/royal-mile/stops/01-castle-esplanade/story.vtt --format json",
        "packtool inspect scenes/royal-mile/stops/01-castle-esplanade/signoff.json --pub keys-example/historian.pub",
        "packtool inspect keys-example/historian.pub",
        "packtool inspect scenes/royal-mile/stops/01-castle-esplanade/story.m4a --voice",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one FILE") }
        let format = a.value("--format") ?? "text"
        guard ["text", "json"].contains(format) else { throw CommandLineError.usage("--format must be text or json") }
        let path = a.positionals[0]
        // Messages and the JSON name the file as all output does (`ShownPath`).
        let url = URL(fileURLWithPath: path)
        var info = stat()
        guard stat(path, &info) == 0 else { throw CommandLineError.io("\(path): no such file") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw CommandLineError.io("\(path): not a regular file") }
        var keys: [Ed25519PublicKey] = []
        for keyPath in a.values("--pub") {
            do { keys.append(try KeyFile.loadPublicKey(at: keyPath)) } catch let e as CryptoError { throw CommandLineError.io(e.message) }
        }
        let inspection: Inspection
        switch try kind(of: url) {
        case .webvtt: inspection = try inspectVTT(url)
        case .heif: inspection = try inspectHEIF(url)
        case .mp4: inspection = try inspectMP4(url, voice: a.flag("--voice"))
        case .json: inspection = try inspectJSON(url, keys: keys)
        case .key: inspection = try inspectKey(url)
        }
        if format == "json" {
            Output.out(try inspection.json())
        } else {
            Output.out(inspection.text.hasSuffix("\n") ? inspection.text : inspection.text + "\n")
        }
        return inspection.ok ? 0 : 1
    }

    private enum Kind { case webvtt, heif, mp4, json, key }

    /// By extension, else by content: an `ftyp` box, a WEBVTT signature, or a JSON opening bracket.
    private static func kind(of url: URL) throws -> Kind {
        switch url.pathExtension.lowercased() {
        case "vtt": return .webvtt
        case "heic", "heif", "avif": return .heif
        case "m4a", "mp4", "aac", "m4b": return .mp4
        case "json": return .json
        case "pub", "pem": return .key
        default: break
        }
        let file: ReadOnlyFile
        do { file = try ReadOnlyFile(opening: url.path) } catch { throw CommandLineError.io("\(error)") }
        let head = file.bytes(at: 0, count: Int(min(16, file.size))) ?? []
        if head.count >= 12, Array(head[4..<8]) == Array("ftyp".utf8) {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            return ["heic", "heix", "mif1", "msf1", "avif", "heim", "heis"].contains(brand) ? .heif : .mp4
        }
        if head.starts(with: Array("WEBVTT".utf8)) || head.starts(with: [0xEF, 0xBB, 0xBF] + Array("WEBVTT".utf8)) { return .webvtt }
        if head.starts(with: Array("-----BEGIN".utf8)) { return .key }
        if let first = head.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }), first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return .json }
        throw CommandLineError.io("\(ShownPath.of(url)): not a file packtool reads (WebVTT, HEIC, MP4 audio, or JSON)")
    }

    /// A PEM key file: a public key (SPKI) as it is, a private one (PKCS#8) by the public key it holds.
    private static func inspectKey(_ url: URL) throws -> Inspection {
        let text = String(decoding: try read(url, limit: 64 << 10), as: UTF8.self)
        let publicKey: Ed25519PublicKey
        let kind: String
        do {
            if text.contains("-----BEGIN PUBLIC KEY-----") {
                publicKey = try Ed25519PublicKey(pemRepresentation: text)
                kind = "public key"
            } else {
                publicKey = try Ed25519PrivateKey(pemRepresentation: text).publicKey
                kind = "private key"
            }
        } catch let e as CryptoError {
            throw CommandLineError.io("\(ShownPath.of(url)): not an Ed25519 key packtool reads (\(e.message))")
        }
        struct Content: Encodable { let type: String; let keyId: String; let publicKey: String }
        let raw = Hex.encode(publicKey.rawRepresentation)
        let text_ = "\(ShownPath.of(url)): Ed25519 \(kind)\n  key id:     \(publicKey.keyID)\n  public key: \(raw)  (pack.json's reviewers[].publicKey)\n"
        return Inspection(kind: "key", file: ShownPath.of(url), ok: true, text: text_, value: Content(type: kind, keyId: publicKey.keyID, publicKey: raw))
    }

    private static func read(_ url: URL, limit: Int) throws -> Data {
        // The one capped read (PackFiles).
        do { return Data(try RegularFile.read(url.path, path: ShownPath.of(url), cap: limit)) } catch let error as FileError {
            if case .tooLarge(let size) = error.kind { throw CommandLineError.io("\(ShownPath.of(url)): \(size) bytes is too large to inspect as text (limit \(limit))") }
            throw CommandLineError.io("\(ShownPath.of(url)): cannot read")
        }
    }

    private static func inspectVTT(_ url: URL) throws -> Inspection {
        let file = WebVTTParser().parse([UInt8](try read(url, limit: 4 << 20)))
        var text = "\(ShownPath.of(url)): " + (file.isWebVTT ? "WebVTT, \(file.cues.count) cue\(file.cues.count == 1 ? "" : "s"), \(file.regions.count) region(s), \(file.styles.count) style block(s)\n" : "not WebVTT\n")
        for cue in file.cues {
            var settings: [String] = []
            if cue.vertical != "" { settings.append("vertical:\(cue.vertical)") }
            if case .number(let n) = cue.line { settings.append("line:\(n)\(cue.snapToLines ? "" : "%"),\(cue.lineAlign)") }
            if case .number(let n) = cue.position { settings.append("position:\(n)%,\(cue.positionAlign)") }
            if cue.size != 100 { settings.append("size:\(cue.size)%") }
            if cue.align != "center" { settings.append("align:\(cue.align)") }
            if let region = cue.region { settings.append("region:\(region.id)") }
            let id = cue.id.isEmpty ? "" : "[\(cue.id)] "
            text += "  \(cue.timingLine): \(id)\(WebVTTParser.format(cue.startTime)) --> \(WebVTTParser.format(cue.endTime))\(settings.isEmpty ? "" : "  " + settings.joined(separator: " "))\n"
            text += cue.text.split(separator: "\n", omittingEmptySubsequences: false).map { "      \($0)\n" }.joined()
        }
        for issue in file.issues { text += "  \(issue.line):\(issue.column): \(issue.severity.rawValue): \(issue.message)\n" }
        return Inspection(kind: "webvtt", file: ShownPath.of(url), ok: file.isWebVTT && !file.issues.contains { $0.severity == .error }, text: text, value: file)
    }

    private static func inspectHEIF(_ url: URL) throws -> Inspection {
        let source = try ByteSource(fileAt: url)
        let info = HEIFProbe().probe(source)
        let other = info.isHEIC ? nil : FileSignature.format(of: source).flatMap { $0.isHEIF ? nil : $0 }
        var text = "\(ShownPath.of(url)): \(info.isHEIC ? "HEIF image" : other.map { "\($0.name), not HEIC" } ?? "not a HEIC image")\n"
        text += "  brands: \(info.majorBrand ?? "?") [\(info.compatibleBrands.joined(separator: ", "))]; boxes: \(info.topLevel.joined(separator: " "))\n"
        if let id = info.primaryItemID { text += "  primary item \(id) (\(info.primaryItemType ?? "?")): properties \(info.primaryProperties.joined(separator: ", "))\n" }
        if let w = info.width, let h = info.height { text += "  stored \(w)×\(h)" + (info.displaySize.map { ", displayed \($0.width)×\($0.height)" } ?? "") + (info.rotation != 0 ? ", rotated \(info.rotation)°" : "") + "\n" }
        for e in info.errors { text += "  error: \(e)\n" }
        return Inspection(kind: "heif", file: ShownPath.of(url), ok: info.errors.isEmpty && info.isHEIC, text: text, value: info)
    }

    /// What `--voice` adds: the detector's verdict, the parts of the story it judged against their own background
    /// (bounds, how far the voice stands above it in dB, and what that lets lint check: clear, coarse or none), its
    /// segments and every frame (1 speech, 0 not).
    private struct HeardAudio: Encodable {
        var audio: MP4AudioInfo
        var voice: Voice
        struct Voice: Encodable {
            var verdict: String
            var frameSeconds: Double
            var duration: Double
            var parts: [Part]
            var segments: [[Double]]
            var frames: String
        }
        struct Part: Encodable {
            var start: Double
            var end: Double
            var level: Double
            var judgement: String
        }
    }

    private static func inspectMP4(_ url: URL, voice: Bool = false) throws -> Inspection {
        let source = try ByteSource(fileAt: url)
        let info = MP4AudioProbe().probe(source)
        let other = info.errors.isEmpty ? nil : FileSignature.format(of: source).flatMap { $0.isMP4 ? nil : $0 }
        var text = "\(ShownPath.of(url)): \(info.handler == "soun" ? "MP4 audio, \(info.codecDescription)" : other.map { "\($0.name), not MP4 audio" } ?? "no sound track")\n"
        if let ch = info.channels, let rate = info.sampleRate { text += "  \(ch) channel\(ch == 1 ? "" : "s"), \(Int(rate)) Hz\n" }
        if let d = info.duration { text += "  duration \(NumberText.fixed(d, 3)) s" + (info.editedDuration != nil ? " (from the edit list)" : "") + "\n" }
        text += "  brands: \(info.majorBrand ?? "?") [\(info.compatibleBrands.joined(separator: ", "))]; boxes: \(info.topLevel.joined(separator: " "))\n"
        for e in info.errors { text += "  error: \(e)\n" }
        guard voice else { return Inspection(kind: "mp4-audio", file: ShownPath.of(url), ok: info.errors.isEmpty && info.isAAC, text: text, value: info) }
        let heard: VoiceActivity
        do { heard = try StoryVoice(cacheFolder: nil).listen(to: url.path) } catch let error as AudioDecodeError {
            throw CommandLineError.failure("\(ShownPath.of(url)): cannot be decoded: \(error)")
        }
        let round = { (t: Double) in (t * 1000).rounded() / 1000 }
        text += "  voice: \(heard.verdict.rawValue), \(heard.segments.count) segment\(heard.segments.count == 1 ? "" : "s")\n"
        let judged = ["none": "nothing can be judged", "coarse": "the whole transcript can be judged, not each cue", "clear": "every cue can be judged"]
        // Parts say how well a voice can be judged; without a voice there is nothing to say about it.
        for part in heard.parts where heard.verdict == .speech || heard.verdict == .faint {
            let label = String(describing: part.judgement), span = "\(NumberText.fixed(part.start, 2))–\(NumberText.fixed(part.end, 2)) s"
            text += part.level > 0 ? "    part \(span): voice \(NumberText.fixed(part.level, 1)) dB above its background (\(judged[label] ?? label))\n"
                : "    part \(span): no voice above its background\n"
        }
        for segment in heard.segments { text += "    \(NumberText.fixed(segment.start, 2))–\(NumberText.fixed(segment.end, 2)) s\n" }
        let parts = heard.parts.map { HeardAudio.Part(start: round($0.start), end: round($0.end), level: $0.level, judgement: String(describing: $0.judgement)) }
        let value = HeardAudio(audio: info, voice: .init(verdict: heard.verdict.rawValue, frameSeconds: heard.frameSeconds, duration: round(heard.duration), parts: parts,
                                                         segments: heard.segments.map { [round($0.start), round($0.end)] },
                                                         frames: String(heard.speech.map { $0 ? "1" : "0" })))
        return Inspection(kind: "mp4-audio", file: ShownPath.of(url), ok: info.errors.isEmpty && info.isAAC, text: text, value: value)
    }

    private static func inspectJSON(_ url: URL, keys: [Ed25519PublicKey]) throws -> Inspection {
        let data = try read(url, limit: JSONDocument.maxBytes)
        let parsed = JSONParser().parse([UInt8](data))
        guard let root = parsed.root else {
            let lines = parsed.issues.map { "  \($0.position.line):\($0.position.column): \($0.message)" }.joined(separator: "\n")
            return Inspection(kind: "json", file: ShownPath.of(url), ok: false, text: "\(ShownPath.of(url)): not well-formed JSON\n\(lines)\n",
                              value: ["errors": parsed.issues.map { "\($0.position.line):\($0.position.column): \($0.message)" }])
        }
        if root["payloadType"] != nil || (root.array?.first?["payloadType"] != nil) {
            return try EnvelopeInspection.inspect(url, data: data, isList: root.array != nil, keys: keys)
        }
        let name = url.lastPathComponent
        let schema: String, kind: String
        if name == "pack.json" || root["route"] != nil { (schema, kind) = ("pack.schema.json", "pack") }
        else if name == "scene.json" || root["anchor"] != nil { (schema, kind) = ("scene.schema.json", "scene") }
        else if name == "uncertainty.json" || root["eras"] != nil { (schema, kind) = ("uncertainty.schema.json", "uncertainty") }
        else { throw CommandLineError.io("\(ShownPath.of(url)): not a pack.json, scene.json, uncertainty.json or signed envelope") }
        guard let document = JSONDocument(url: url, path: ShownPath.of(url), schema: schema) else { throw CommandLineError.io("\(ShownPath.of(url)): cannot read") }
        let problems = Linter.describe(document)
        let model: Encodable?
        switch kind {
        case "pack": model = document.decode(PackDocument.self)
        case "scene": model = document.decode(SceneDocument.self)
        default: model = document.decode(UncertaintyDocument.self)
        }
        var text = "\(ShownPath.of(url)): \(kind) document\n"
        text += problems.isEmpty ? try (model.map { try Inspection.encode($0, file: url) } ?? "") : problems.map { "  \($0)\n" }.joined()
        return Inspection(kind: kind, file: ShownPath.of(url), ok: problems.isEmpty && model != nil, text: text,
                          value: ModelInspection(model: model.map(AnyEncodable.init), problems: problems))
    }
}


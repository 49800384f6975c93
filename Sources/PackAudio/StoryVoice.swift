#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackCrypto
import PackLint
import PackMedia
import PackModel

/// Lint's ears (`VoiceListening`): the voice in a story file, decoded and detected once per distinct audio and kept in
/// the user's cache folder (`voice/` under `UserCacheFolder`) under the audio's SHA-256 and the detector's version, so
/// linting a pack whose stories did not change decodes nothing.
public struct StoryVoice: VoiceListening {
    /// Bumped whenever the detector's output would change: older cache entries are then not used.
    public static let detectorVersion = 4

    /// The cache folder, or nil to decode every time.
    public var cacheFolder: String?
    public var decoder = AudioDecoder()

    public init(cacheFolder: String?) { self.cacheFolder = cacheFolder }

    public var maxSeconds: Double { decoder.maxSeconds }

    /// The cache the environment names (`UserCacheFolder`).
    public static func standard(environment: [String: String] = ProcessInfo.processInfo.environment) -> StoryVoice {
        StoryVoice(cacheFolder: UserCacheFolder.path("voice", environment: environment))
    }

    /// Where the voice is in the audio file at `path`.
    public func listen(to path: String) throws -> VoiceActivity { try listen(to: path, known: nil) }

    public func listen(to path: String, known: KnownDigest?) throws -> VoiceActivity {
        let key = try Self.sha256(of: path, known: known) + "-v\(Self.detectorVersion)-runs"
        // The cache is reached through the rooted layer: a link planted at an entry's name (or beneath the folder) is
        // never followed, read or written through.
        // A folder of the user's cache, private and this user's own (`RootedFolder.userCache`): a voice planted in a
        // shared one would pass a transcript it does not match.
        let folder = cacheFolder.flatMap { RootedFolder.userCache($0, creating: true) }
        let name = key + ".json"
        // Read with lint's own parser, field by field (JSONDecoder's first use in a process costs more than
        // everything else a cached story does), and only when it parses whole: an issue of any kind is a miss.
        if let folder, let data = folder.readPrivate(name, cap: 16 << 20) {
            let parsed = JSONParser().parse([UInt8](data))
            if parsed.issues.isEmpty, let root = parsed.root, let entry = Entry(node: root),
               entry.key == key, let voice = entry.voice {
                return voice
            }
        }
        var features = SpeechFeatures()
        try decoder.decode(path) { features.add($0) }
        let voice = VoiceActivity.detect(features)
        if let folder, let data = try? JSONEncoder().encode(Entry(key: key, voice: voice)) {
            // A cache that cannot be written is no error: the next run decodes again.
            try? folder.writeAtomically(data, to: name, mode: 0o600)
        }
        return voice
    }

    /// The cache key's hash: `known`'s when the file is still the one it was computed from (same device, inode, size
    /// and times: any write changes them), else the bytes' own, read as the decoder reads them — a link in the
    /// story's place is not followed.
    static func sha256(of path: String, known: KnownDigest?) throws -> String {
        do {
            let file = try RegularFile.openForReading(path, path: path, extraFlags: O_NOFOLLOW)
            defer { close(file.fd) }
            // Only an identity whose times move with every write stands in for the bytes (`WriteTracking`).
            if let known, known.identity.tracksWrites, FileIdentity(descriptor: file.fd) == known.identity { return known.sha256 }
        } catch {
            throw AudioDecodeError("it cannot be read: \(error)")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        do { return Hex.encode(try SHA256.hashWithIdentity(fileAt: URL(fileURLWithPath: path), buffer: buffer, followingLinks: false).digest) } catch {
            throw AudioDecodeError("it cannot be read: \(error)")
        }
    }
}

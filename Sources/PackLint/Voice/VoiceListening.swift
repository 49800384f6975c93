import PackCrypto
import PackMedia

/// How lint hears a story: where the voice is in an audio file. Lint links no decoder (DESIGN.md §8.10): packtool gives
/// it PackAudio's `StoryVoice` (FFmpeg, opened on first use, and a detector of its own), tests may give any other.
/// A lint run without a listener checks everything but the voice.
public protocol VoiceListening: Sendable {
    /// The longest audio the listener hears: a longer story is judged on its first `maxSeconds`.
    var maxSeconds: Double { get }
    /// Where the voice is in the audio file at `path`. Throws `VoiceNotHeard` when it cannot tell (the file does not
    /// decode, or no decoder is installed); other errors are reported as the file being unreadable.
    func listen(to path: String) throws -> VoiceActivity
    /// `listen(to:)` when the file's SHA-256 is already known (`known`: lint hashed the scene for its sign-off), so a
    /// listener that keys a cache by it need not read the file a second time — as long as the file is still the one
    /// that was hashed (`known.identity`).
    func listen(to path: String, known: KnownDigest?) throws -> VoiceActivity
}

extension VoiceListening {
    /// A listener without a cache has no use for a known digest.
    public func listen(to path: String, known: KnownDigest?) throws -> VoiceActivity { try listen(to: path) }
}

/// A file's SHA-256 as hashed earlier in the run, and the file's identity then (device, inode, size, times).
public struct KnownDigest: Equatable, Sendable {
    /// Lower-case hex.
    public var sha256: String
    public var identity: FileIdentity

    /// The digest `sha256` (lower-case hex) of the file whose identity was `identity` when it was hashed.
    public init(sha256: String, identity: FileIdentity) {
        self.sha256 = sha256
        self.identity = identity
    }
}

/// Why a story could not be heard, in words an author can act on.
public struct VoiceNotHeard: Error, CustomStringConvertible, Equatable, Sendable {
    public var description: String
    /// No decoder is installed on this machine: nothing is wrong with the story (a note, not an error).
    public var decoderMissing: Bool
    public init(_ description: String, decoderMissing: Bool = false) {
        self.description = description
        self.decoderMissing = decoderMissing
    }
}

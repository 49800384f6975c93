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

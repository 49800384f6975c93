/// Where one download's bytes go, in order, as they arrive — the one interface every transport writes a body through:
/// a resumable `.part` file (`PartialDownload`), or a streamed install that authenticates and stages each byte as it
/// comes and keeps nothing else (`ArchiveStream` in PackVerify, DESIGN §8.5).
///
/// A transport asks for the bytes from `have` on (`Range: bytes=have-` when it is above zero), appends what the server
/// sends, and calls `restart` when the server answers from the first byte after all (it ignored the Range): the sink
/// then expects the body from byte 0 again — a file empties itself, a stream drops what it already has.
public protocol DownloadSink: AnyObject {
    /// Bytes the sink holds (or has consumed): where the next request resumes.
    var have: UInt64 { get }
    /// The byte cap: appending past it throws `fetch-size`.
    var maxBytes: UInt64 { get }
    /// What is being downloaded, for messages.
    var name: String { get }
    /// The server answers from byte 0: start again there.
    func restart() throws
    /// The next bytes of the body, in order. An error thrown stops the download at once and is thrown by the fetch.
    func append(_ bytes: UnsafeRawBufferPointer) throws
}

extension PartialDownload: DownloadSink {}

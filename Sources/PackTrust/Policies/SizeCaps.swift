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
import PackModel

/// Caps on what is read before anything is verified: a signed document is read whole (Ed25519 cannot stream), so
/// its size is checked against its cap first, and nothing endless is ever read.
public enum SizeCaps {
    /// A root document: 1 MiB.
    public static let root: UInt64 = 1 << 20
    /// The index: 4 MiB.
    public static let index: UInt64 = 4 << 20
    /// A pack manifest: 16 MiB.
    public static let manifest: UInt64 = 16 << 20
    /// A delta archive's signed document: 16 MiB.
    public static let deltaDocument: UInt64 = 16 << 20
    /// An access code's envelope (a `PTG1.` code decodes to at most this many bytes).
    public static let grant: UInt64 = 8 << 10
    /// The client state file: 1 MiB (`state-size` beyond it).
    public static let clientState: UInt64 = 1 << 20
    /// The most bytes a delta of `scene` may hold: each file's signed size plus its tar headers, and room for the
    /// delta's own document. The one formula for a phone's download cap (the planner, a plan read back from the
    /// state folder) and for `packtool verify`, so a delta the phone would stop downloading is not passed.
    public static func delta(of scene: Manifest.Scene) throws -> UInt64 {
        let what = "the download cap of scene \(scene.id)'s delta"
        return try Numbers.add(try Numbers.sum(try scene.files.map { try Numbers.add($0.size, 1536, what, code: .fetchSize) }, what, code: .fetchSize),
                               deltaDocument, what, code: .fetchSize)
    }

    /// The revocation list (`revocations/N.json`): a hard cap, on top of the size the index binds. A few thousand
    /// entries fit; the client state, which keeps the list, is capped at 1 MiB too.
    public static let revocations: UInt64 = 512 << 10

    /// Reads a file only after checking it is a regular file within `cap` bytes.
    public static func read(_ url: URL, cap: UInt64) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else { throw VerificationFailure(.missing, "\(url.path) is missing") }
        // A FIFO, device or folder would block or make no sense as a document.
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw VerificationFailure(.unreadable, "\(url.path): not a regular file (\(FileSystem.kind(info.st_mode)))")
        }
        guard UInt64(info.st_size) <= cap else { throw VerificationFailure(.size, "\(url.path) is \(info.st_size) bytes, over the \(cap)-byte cap") }
        // What is left is a file that cannot be read (no permission) or grew while being read.
        do { return try FileSystem.read(url.path, cap: Int(cap)) } catch let error as ModelError {
            throw VerificationFailure(.unreadable, error.description)
        }
    }
}

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

/// Writes a file so readers see either the old bytes or the new, never a mix: a temporary file in the same folder,
/// flushed, then renamed over the target. On failure the temporary file is removed and the target is untouched.
///
/// Two commit points (`Durability`): the temporary file's data is durable before the rename (a barrier between them,
/// or a drive could store the rename first and a power cut would leave an empty file under the target's name), and
/// the rename is durable before `write` returns (the folder flushed, then a barrier).
public enum AtomicFile {
    /// Replaces the file at `url` with `data` all at once and durably: a reader sees the old bytes or the new, never a
    /// mix, and once it returns a power cut keeps the new.
    /// - Throws: ``ModelError`` naming the path when the file cannot be written, flushed or renamed.
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o644) throws {
        try write(data, to: url, mode: mode, durability: .system)
    }

    /// The folder holding `url` is opened by its path (the caller's choice); the file's own name is then written
    /// through the rooted layer (`RootedFolder.writeAtomically`): a link planted under the name is replaced, never
    /// written through.
    package static func write(_ data: Data, to url: URL, mode: mode_t = 0o644, durability: Durability) throws {
        do {
            let folder = try RootedFolder(opening: url.deletingLastPathComponent().path, followingLinkAtRoot: true)
            try folder.writeAtomically(data, to: url.lastPathComponent, mode: mode, durability: durability)
        } catch let error as FileError {
            throw ModelError(file: url.path, message: error.path == url.path ? error.message : "\(error)")
        }
    }
}

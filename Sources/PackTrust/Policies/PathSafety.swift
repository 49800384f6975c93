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
import PackFiles
import PackModel

/// Which archive paths may be written into an install: relative, `/`-separated, no `.`/`..`/empty components, no
/// control, invisible or bidirectional characters, no characters that case folding or compatibility mapping turns
/// into others (`NameCharacters`), no backslashes, no marks joining a `/` into a larger character, and unique even on a case-insensitive, normalisation-insensitive
/// file system.
public struct PathSafety {
    private var seen: [String: String] = [:]
    /// Folded folder paths that admitted paths run through.
    private var folders: Set<String> = []

    /// A checker that has seen no paths yet; use one per archive or tree, since it refuses collisions among the paths
    /// it admits.
    public init() {}

    static func fold(_ path: String) -> String { NameCharacters.fold(path) }

    /// Accepts `path` or explains why not; records it so a later twin is refused.
    public mutating func admit(_ path: String) throws {
        guard !path.isEmpty, path.utf8.count <= 1024 else { throw VerificationFailure(.path, "an empty or overlong path") }
        guard !path.hasPrefix("/") else { throw VerificationFailure(.pathAbsolute, "\(path) is an absolute path") }
        let components = PathParts.split(path)
        guard !components.contains(where: { $0 == ".." }) else { throw VerificationFailure(.pathTraversal, "\(path) climbs out with ..") }
        guard !components.contains(where: { $0.isEmpty || $0 == "." }) else { throw VerificationFailure(.path, "\(path) has an empty or '.' component") }
        if let hidden = NameCharacters.hidden(in: path) {
            throw VerificationFailure(.path, "\(path) contains \(NameCharacters.describe(hidden)), a control, invisible or bidirectional character")
        }
        if let folding = NameCharacters.folding(in: path) {
            throw VerificationFailure(.path, "\(path) contains \(NameCharacters.describe(folding)), which case folding or compatibility mapping turns into other letters")
        }
        guard !path.contains("\\") else { throw VerificationFailure(.path, "\(path) contains a backslash") }
        // A combining mark just after a `/`, or a prepended one just before it, makes the `/` part of a larger
        // Character: code that reads paths by Characters (`hasPrefix`, `firstIndex(of: "/")`) no longer sees that
        // separator where the kernel does, and an install wrote `stops/07/\u{301}x.txt` as one name. Lint refuses such
        // names (PT0114); so does every reader of a signed path.
        for c in components where ("/" + c + "/").count != c.count + 2 {
            let mark = ("/" + c).count != c.count + 1 ? c.unicodeScalars.first! : c.unicodeScalars.last!
            throw VerificationFailure(.path, "\(path) has a name that begins or ends with \(NameCharacters.describe(mark)), which joins the / beside it into one character")
        }
        let key = Self.fold(path)
        if let other = seen[key] {
            throw VerificationFailure(.pathCollision, other == path ? "\(path) appears twice" : "\(path) and \(other) are the same file on a case- and normalisation-insensitive file system")
        }
        // A file may not also be used as a folder of another path (or the reverse).
        var prefix = ""
        for c in components.dropLast() {
            prefix += (prefix.isEmpty ? "" : "/") + c
            if let other = seen[Self.fold(prefix)] { throw VerificationFailure(.pathCollision, "\(path) would be inside the file \(other)") }
        }
        if folders.contains(key) { throw VerificationFailure(.pathCollision, "\(path) is also a folder of another entry") }
        seen[key] = path
        var folder = ""
        for c in PathParts.split(key).dropLast() {
            folder += (folder.isEmpty ? "" : "/") + c
            folders.insert(folder)
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import PackArchive
import PackAuthoring
import PackCrypto
import PackLint
import PackModel
import PackSigning

/// Paths a publish created, removed again (files first, then folders, deepest first) if it fails.
struct CreatedPaths {
    private var files: [URL] = []
    private var directories: [URL] = []

    mutating func file(_ url: URL) { files.append(url) }

    /// Creates a folder and its missing parents, remembering each one it made.
    mutating func makeDirectory(_ url: URL) throws {
        var missing: [URL] = []
        var current = url
        while !FileManager.default.fileExists(atPath: current.path) {
            missing.append(current)
            current.deleteLastPathComponent()
        }
        for dir in missing.reversed() {
            guard mkdir(dir.path, 0o755) == 0 || errno == EEXIST else {
                throw PublishError.io("\(dir.path): cannot create (\(String(cString: strerror(errno))))")
            }
            directories.append(dir)
        }
    }

    mutating func keepAll() {
        files = []
        directories = []
    }

    func removeAll() {
        for f in files.reversed() { unlink(f.path) }
        for d in directories.reversed() { rmdir(d.path) }
    }
}

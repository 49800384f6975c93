import CArchive
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A failure reading or writing an archive, naming the archive it concerns (with libarchive's own message when
/// TarReader's libarchive failed).
public struct ArchiveError: Error, CustomStringConvertible, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// The one place libarchive return codes become Swift errors.
    static func check(_ code: Int32, _ handle: OpaquePointer, _ what: String) throws {
        guard code < ARCHIVE_WARN else { return }  // ARCHIVE_OK (0) and ARCHIVE_WARN (-20) are usable results.
        let detail = archive_error_string(handle).map { String(cString: $0) } ?? "libarchive error \(code)"
        throw ArchiveError("\(what): \(detail)")
    }
}

/// Process-wide setup libarchive needs.
enum ArchiveLibrary {
    /// libarchive needs a UTF-8 LC_CTYPE to write non-ASCII names (it crashes in archive_write_header otherwise).
    static func ensureUTF8Locale() {
        let current = setlocale(LC_CTYPE, nil).map { String(cString: $0) } ?? ""
        if !current.lowercased().contains("utf") { setlocale(LC_CTYPE, "C.UTF-8") }
    }
}

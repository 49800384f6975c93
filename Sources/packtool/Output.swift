#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel

/// Writes to standard output and standard error without Foundation's shared mutable `FileHandle` globals.
enum Output {
    static func out(_ text: String) { write(1, text) }
    static func err(_ text: String) { write(2, text) }

    /// True when standard output is a terminal and `NO_COLOR` is unset (https://no-color.org).
    static var wantsColor: Bool {
        isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map { $0.isEmpty } ?? true
    }

    private static func write(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { FileSystem.writeAll(fd, $0) }
    }
}

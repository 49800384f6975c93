#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Writes to standard output and standard error without Foundation's shared mutable `FileHandle` globals.
enum Output {
    static func out(_ text: String) { write(1, text) }
    static func err(_ text: String) { write(2, text) }

    /// True when standard output is a terminal and `NO_COLOR` is unset (https://no-color.org).
    static var wantsColor: Bool {
        isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map { $0.isEmpty } ?? true
    }

    private static func write(_ fd: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n <= 0 { return }
            offset += n
        }
    }
}

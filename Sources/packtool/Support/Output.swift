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
    static func out(_ text: String) {
        if !text.isEmpty { wroteOutput = true }
        write(1, text)
    }

    /// Whether anything went to standard output: a command that printed its JSON result and then failed (exit 1 with a
    /// refusal) has answered already, so `main` adds no second object.
    nonisolated(unsafe) static var wroteOutput = false
    static func err(_ text: String) { write(2, text) }

    /// Set by `--quiet`, which every command takes: progress and notes are not printed; errors and warnings are.
    nonisolated(unsafe) static var quiet = false

    /// Progress or a note on standard error, left out with `--quiet`.
    static func note(_ text: String) { if !quiet { write(2, text) } }

    /// Whether to colour standard output, by `--color auto|always|never` (nil: auto): auto is true when standard
    /// output is a terminal and `NO_COLOR` is unset or empty; the option given on the command line wins over
    /// `NO_COLOR`, as https://no-color.org asks.
    static func wantsColor(_ mode: String?) -> Bool {
        switch mode {
        case "always": return true
        case "never": return false
        default: return isatty(1) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"].map { $0.isEmpty } ?? true
        }
    }

    /// `text` with every control character except line breaks and tabs — C0, DEL, C1 (ESC starts a terminal escape
    /// sequence) — and every invisible or bidirectional formatting character written as `\u{…}`, so text that came
    /// from input is shown, never obeyed, by a terminal.
    static func escapingControls(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let control = (v < 0x20 && scalar != "\n" && scalar != "\t") || (0x7F...0x9F).contains(v)
            if control || scalar.properties.generalCategory == .format {
                out += "\\u{" + String(v, radix: 16) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func write(_ fd: Int32, _ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { FileSystem.writeAll(fd, $0) }
    }
}

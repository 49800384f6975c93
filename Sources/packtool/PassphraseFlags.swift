#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel
import PackSigning

/// Passphrases for encrypted private keys (DESIGN.md §9.2): from `--passphrase-file FILE` (repeatable; one passphrase
/// per file, its first line), else from the file `PACKTOOL_PASSPHRASE_FILE` names, else asked on the terminal — never
/// from the command line or an environment variable's value, which other users of the machine can read (`ps`,
/// `/proc/PID/environ`). With no terminal (cron, CI) and no file, an encrypted key is one clear line and exit 2.
enum PassphraseFlags {
    static let option = CommandOption("--passphrase-file", "FILE", "the passphrase of encrypted private keys (first line; repeatable), else\n$PACKTOOL_PASSPHRASE_FILE, else asked on the terminal")
    static let environment = "PACKTOOL_PASSPHRASE_FILE"

    /// The passphrases the command was given, and a terminal to ask when it has one.
    static func passphrases(_ a: Arguments) throws -> KeyFile.Passphrases {
        var files = a.values("--passphrase-file")
        if files.isEmpty, let named = ProcessInfo.processInfo.environment[environment], !named.isEmpty { files = [named] }
        return KeyFile.Passphrases(given: try files.map(read), ask: files.isEmpty ? Terminal.askIfPossible : nil)
    }

    /// A passphrase file's first line (without its line ending), refused when others can read it, as a key would be.
    static func read(_ path: String) throws -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw CommandLineError.io("\(path): cannot read the passphrase file (\(FileSystem.exists(path) ? "not a regular file" : "no such file"))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CommandLineError.io("\(path): the passphrase file is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run `chmod 600 \(path)`")
        }
        guard info.st_size <= 4096, let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError.io("\(path): not a passphrase file (over 4 KiB, or unreadable)")
        }
        var line = Array(data.prefix { $0 != 0x0A })
        if line.last == 0x0D { line.removeLast() }
        guard !line.isEmpty else { throw CommandLineError.io("\(path): the passphrase file's first line is empty") }
        return line
    }

    /// The message for a key that needs a passphrase nobody gave.
    static func missing(_ message: String) -> CommandLineError {
        .io("\(message): give --passphrase-file FILE or set \(environment) (cron and CI have no terminal to ask at)")
    }
}

/// Asking a person for a passphrase on the controlling terminal, with echo off.
enum Terminal {
    /// Asks on `/dev/tty` when standard input is a terminal; nil when there is none (cron, CI, a pipe).
    static func askIfPossible(_ keyPath: String) throws -> [UInt8]? {
        try ask("passphrase for \(keyPath): ")
    }

    /// One line read from the terminal with echo off; nil when there is no terminal.
    static func ask(_ prompt: String) throws -> [UInt8]? {
        guard isatty(0) == 1 else { return nil }
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { return nil }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        _ = tcsetattr(fd, TCSAFLUSH, &quiet)
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = write(fd, "\n", 1)
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(fd, &byte, 1) == 1, byte != 0x0A, line.count < 4096 { line.append(byte) }
        if line.last == 0x0D { line.removeLast() }
        return line
    }
}

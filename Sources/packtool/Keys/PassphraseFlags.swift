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

/// Passphrases for encrypted private keys (DESIGN.md §9.2): from every `--passphrase-file FILE` (repeatable; one
/// passphrase per file, its first line) and the file `PACKTOOL_PASSPHRASE_FILE` names — each key opened with the first
/// that fits, so a drill's root-key passphrase on the command line and a job's index-key passphrase in its environment
/// work together — else asked on the terminal; never from the command line or an environment variable's value, which
/// other users of the machine can read (`ps`, `/proc/PID/environ`). With no terminal (cron, CI) and no file, an
/// encrypted key is one clear line and exit 2.
enum PassphraseFlags {
    static let option = CommandOption("--passphrase-file", "FILE", "the passphrase of encrypted private keys (first line; repeatable), tried with the\nfile $PACKTOOL_PASSPHRASE_FILE names; with neither, asked on the terminal")
    static let environment = "PACKTOOL_PASSPHRASE_FILE"

    /// The passphrases the command was given, and a terminal to ask when it has none.
    static func passphrases(_ a: Arguments) throws -> KeyFile.Passphrases {
        var given = try a.values("--passphrase-file").map { try read($0, named: $0) }
        if let named = ProcessInfo.processInfo.environment[environment], !named.isEmpty {
            // The variable's value is never printed: someone may have put the passphrase itself there by mistake,
            // and this line would then carry it into cron mail and CI logs.
            given.append(try read(named, named: "the file \(environment) names"))
        }
        return KeyFile.Passphrases(given: given, ask: given.isEmpty ? Terminal.askIfPossible : nil)
    }

    /// A passphrase file's first line (without its line ending), refused when others can read it, as a key would be.
    /// `named` is how messages name the file.
    static func read(_ path: String, named: String) throws -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw CommandLineError.io("\(named): cannot read the passphrase file (\(FileSystem.exists(path) ? "not a regular file" : "no such file"))")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw CommandLineError.io("\(named): the passphrase file is readable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); run `chmod 600` on it")
        }
        guard info.st_size <= 4096, let data = FileManager.default.contents(atPath: path) else {
            throw CommandLineError.io("\(named): not a passphrase file (over 4 KiB, or unreadable)")
        }
        var line = Array(data.prefix { $0 != 0x0A })
        if line.last == 0x0D { line.removeLast() }
        guard !line.isEmpty else { throw CommandLineError.io("\(named): the passphrase file's first line is empty") }
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
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)  // rooted-writes: allow the terminal device, not a file in any tree
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

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

/// Finds lint-rules.md for SARIF's `helpUri`, so a code-scanning view's "rule help" link opens a file that exists:
/// `share/doc/packtool/lint-rules.md` beside an installed or unpacked binary (`bin/packtool`), or `docs/lint-rules.md`
/// of the checkout a development build runs from (`.build/<config>/packtool`).
enum RulesDocument {
    static func locate() -> String? {
        guard let executable = executablePath() else { return nil }
        var folder = URL(fileURLWithPath: executable).deletingLastPathComponent()
        let installed = folder.deletingLastPathComponent().appendingPathComponent("share/doc/packtool/lint-rules.md").path
        if isFile(installed) { return installed }
        // A checkout: the binary sits a few folders below the repository (.build/x86_64-unknown-linux-gnu/debug).
        for _ in 0..<5 {
            folder = folder.deletingLastPathComponent()
            guard folder.path.count > 1 else { break }
            let candidate = folder.appendingPathComponent("docs/lint-rules.md").path
            if isFile(candidate), isFile(folder.appendingPathComponent("Package.swift").path) { return candidate }
        }
        return nil
    }

    private static func isFile(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    /// The running binary's own path, symlinks resolved (a PATH lookup or a `bin/` symlink must still find the
    /// documents installed beside the real file).
    private static func executablePath() -> String? {
        #if os(Linux)
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        guard _NSGetExecutablePath(&buffer, &size) == 0 else { return nil }
        let path = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        #else
        return nil
        #endif
    }
}

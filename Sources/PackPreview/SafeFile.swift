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
import PackFiles

/// Authored paths are only followed inside their stop folder: a relative path of plain names, naming a regular file
/// reached through no link. Anything else (`..`, an absolute path, a link out of the pack, a FIFO that would block the
/// read) is not shown; lint's finding about it says why.
enum SafeFile {
    static func inside(_ folder: URL, _ relative: String) -> URL? {
        let parts = PathParts.split(relative)
        guard !relative.isEmpty, !relative.hasPrefix("/"), parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }),
              !relative.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        var url = folder
        for (i, part) in parts.enumerated() {
            url.appendPathComponent(String(part))
            var info = stat()
            guard lstat(url.path, &info) == 0 else { return nil }
            let kind = info.st_mode & S_IFMT
            if i == parts.count - 1 { return kind == S_IFREG ? url : nil }
            guard kind == S_IFDIR else { return nil }
        }
        return nil
    }
}

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

/// A relative path resolved beneath a folder one component at a time, never through a link: each folder on the way
/// is opened with `O_DIRECTORY | O_NOFOLLOW` relative to the one before (the first piece of issue 29's rooted layer).
/// A link, or anything but a folder, on the way is `nil` — the path does not lead where the library put its files.
enum BeneathFolder {
    /// The folder holding the last component of `relative` (open; the caller closes it) and that component's name.
    static func parent(of relative: String, in base: String) -> (fd: Int32, name: String)? {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let name = parts.last, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return nil }
        var fd = open(base, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        for folder in parts.dropLast() {
            let next = openat(fd, folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(fd)
            guard next >= 0 else { return nil }
            fd = next
        }
        return (fd, name)
    }
}

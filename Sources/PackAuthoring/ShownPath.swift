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

/// A file's path as packtool's output shows it — every command, text and JSON alike, and the messages of the
/// libraries it prints (lint's findings among them). One rule, so a path one command prints can be typed into the
/// next from the same folder:
/// - inside the working folder: relative to it, as the author would type it there (`scenes/royal-mile/scene.json`,
///   never `./scenes/…`);
/// - the working folder itself: `.`;
/// - anywhere else, and everything when the working folder is `/` (`etc/passwd` would read as a folder of the
///   pack): absolute, with `.`, `..` and doubled slashes resolved as written (links are not followed).
///
/// Tool-only, so it lives here, the lowest module every module that prints for packtool depends on (lint, preview,
/// publish, the CLI), and not in the client modules: an app has no working folder to be relative to.
public enum ShownPath {
    /// `url`'s path as output shows it.
    public static func of(_ url: URL) -> String { of(url.path) }

    /// `path` (absolute, or relative to the working folder) as output shows it.
    public static func of(_ path: String) -> String {
        of(path, workingFolders: workingFolders(FileManager.default.currentDirectoryPath))
    }

    /// `path` as shown from the working folder spelled `folders` (the first resolves a relative `path`).
    static func of(_ path: String, workingFolders folders: [String]) -> String {
        let absolute = normalized(path.hasPrefix("/") ? path : folders[0] + "/" + path)
        for folder in folders where folder != "/" {
            if absolute == folder { return "." }
            if absolute.hasPrefix(folder + "/") { return String(absolute.dropFirst(folder.count + 1)) }
        }
        return absolute
    }

    /// The working folder as the kernel gives it (links resolved) and, when the shell's `PWD` names the same folder
    /// by another way (a link on the way: macOS's `/tmp` is `/private/tmp`), as the author typed it: a path given
    /// under either spelling is shown relative. A stale `PWD` (a parent that changed folders without updating it)
    /// names another folder and is not used.
    static func workingFolders(_ cwd: String) -> [String] {
        var folders = [normalized(cwd)]
        // getenv, not ProcessInfo's environment: that copies the whole environment into a dictionary on every call,
        // and lint shows a path for every file it reads (a twentieth of linting the example pack went there).
        if let raw = getenv("PWD"), case let pwd = String(cString: raw), pwd.hasPrefix("/"), normalized(pwd) != folders[0] {
            var here = stat(), there = stat()
            if stat(".", &here) == 0, stat(pwd, &there) == 0, here.st_dev == there.st_dev, here.st_ino == there.st_ino {
                folders.append(normalized(pwd))
            }
        }
        return folders
    }

    /// An absolute path with empty and `.` components dropped and each `..` taking off the one before (not past `/`).
    static func normalized(_ absolute: String) -> String {
        var parts: [String] = []
        for part in PathParts.split(absolute, omittingEmpty: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}

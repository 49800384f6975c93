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

/// What a folder must look like for the preview to replace it: empty, or exactly a site it wrote — its marker, and
/// only the files a preview writes, each where a preview puts it. Anything else (notes added beside the pages, a
/// `.git`, a folder whose contents were copied over a preview's) makes the run refuse, naming what it found, so a
/// rerun can never delete work that is not its own.
enum SiteShape {
    static let markerPrefix = "packtool preview of "

    /// The marker's text for a pack.
    static func marker(pack: String) -> String { markerPrefix + pack + "\n" }

    /// Paths (relative to `site`) that a preview would not have written; empty when the folder may be replaced.
    static func foreignEntries(in site: URL) -> [String] {
        guard let top = try? FileSystem.list(site.path) else { return ["(the folder cannot be read)"] }
        if top.isEmpty { return [] }
        var foreign: [String] = []
        let markerURL = site.appendingPathComponent(PreviewBuilder.marker)
        if !(kind(markerURL) == S_IFREG && ((try? FileSystem.read(markerURL.path, cap: 4096)).map { String(decoding: $0, as: UTF8.self).hasPrefix(markerPrefix) } ?? false)) {
            foreign.append(top.contains(PreviewBuilder.marker) ? PreviewBuilder.marker + " (not written by packtool preview)" : "(no \(PreviewBuilder.marker) marker)")
        }
        for name in top where name != PreviewBuilder.marker {
            let url = site.appendingPathComponent(name)
            switch name {
            case "index.html": if kind(url) != S_IFREG { foreign.append(name) }
            case "assets": foreign += files(in: url, prefix: name) { $0 == "preview.css" || $0 == "preview.js" }
            case "stops": foreign += files(in: url, prefix: name) { $0.hasSuffix(".html") && !$0.hasPrefix(".") }
            case "plates": foreign += files(in: url, prefix: name) { $0.hasSuffix(".webp") && !$0.hasPrefix(".") }
            case "media":
                guard kind(url) == S_IFDIR else { foreign.append(name); continue }
                for stop in (try? FileSystem.list(url.path)) ?? [] {
                    foreign += files(in: url.appendingPathComponent(stop), prefix: "media/" + stop) { $0.hasPrefix("story.") }
                }
            default: foreign.append(name)
            }
        }
        return foreign
    }

    /// The entries of `folder` that are not regular files `allowed` by name (or the folder itself when it is not one).
    private static func files(in folder: URL, prefix: String, allowed: (String) -> Bool) -> [String] {
        guard kind(folder) == S_IFDIR, let names = try? FileSystem.list(folder.path) else { return [prefix] }
        return names.filter { !allowed($0) || kind(folder.appendingPathComponent($0)) != S_IFREG }.map { prefix + "/" + $0 }
    }

    /// The file type, without following a link.
    private static func kind(_ url: URL) -> mode_t {
        var info = stat()
        return lstat(url.path, &info) == 0 ? info.st_mode & S_IFMT : 0
    }
}

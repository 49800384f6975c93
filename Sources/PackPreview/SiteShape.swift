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
import PackCrypto
import PackModel

/// What a folder must look like for the preview to replace or remove it: empty, or exactly a site it wrote — its
/// marker, and only the files a preview writes, each where a preview puts it. Anything else (notes added beside the
/// pages, a `.git`, a folder whose contents were copied over a preview's) makes the run refuse, naming what it found,
/// so a run never deletes work that is not its own.
///
/// The marker also lists the SHA-256 of every WebP the site holds, so a later run reuses a cached plate only when it
/// is still byte for byte the one that run wrote.
enum SiteShape {
    static let markerPrefix = "packtool preview of "

    /// The marker's text: the pack it shows, then `<sha256>  plates/<name>` for each WebP.
    static func marker(pack: String, plates: [(name: String, sha256: String)]) -> String {
        markerPrefix + pack + "\n" + plates.sorted { $0.name < $1.name }.map { "\($0.sha256)  plates/\($0.name)\n" }.joined()
    }

    /// The WebPs an earlier site's marker vouches for, by file name, with their SHA-256 (read through the site's handle).
    static func recordedPlates(in site: RootedFolder) -> [String: String] {
        guard let data = try? site.read(PreviewBuilder.marker, cap: 4 << 20) else { return [:] }
        var out: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst() {
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 64, parts[1].hasPrefix(" plates/") else { continue }
            out[String(parts[1].dropFirst(" plates/".count))] = String(parts[0])
        }
        return out
    }

    /// Paths (relative to `site`) that a preview would not have written; empty when the folder may be replaced. With
    /// `partial`, the folder is a staging folder a killed run left: its marker may not be written yet, and its plates
    /// folder may hold the temporary files of WebPs being written.
    static func foreignEntries(in site: URL, partial: Bool = false) -> [String] {
        guard let top = try? FileSystem.list(site.path) else { return ["(the folder cannot be read)"] }
        if top.isEmpty { return [] }
        var foreign: [String] = []
        let markerURL = site.appendingPathComponent(PreviewBuilder.marker)
        let markerIsOurs = kind(markerURL) == S_IFREG && recordedMarkerText(markerURL).hasPrefix(markerPrefix)
        if !markerIsOurs && !(partial && !top.contains(PreviewBuilder.marker)) {
            foreign.append(top.contains(PreviewBuilder.marker) ? PreviewBuilder.marker + " (not written by packtool preview)" : "(no \(PreviewBuilder.marker) marker)")
        }
        for name in top where name != PreviewBuilder.marker {
            let url = site.appendingPathComponent(name)
            switch name {
            case "index.html": if kind(url) != S_IFREG { foreign.append(name) }
            case "assets": foreign += files(in: url, prefix: name) { $0 == "preview.css" || $0 == "preview.js" }
            case "stops": foreign += files(in: url, prefix: name) { $0.hasSuffix(".html") && !$0.hasPrefix(".") }
            case "plates":
                foreign += files(in: url, prefix: name) { ($0.hasSuffix(".webp") && !$0.hasPrefix(".")) || (partial && isTemporaryPlate($0)) }
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

    /// `.<name>.webp.<random>`: a WebP being written (`SiteFiles.writeShared`).
    private static func isTemporaryPlate(_ name: String) -> Bool {
        guard name.hasPrefix("."), let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
        return name[..<dot].hasSuffix(".webp") && UInt64(name[name.index(after: dot)...]) != nil
    }

    private static func recordedMarkerText(_ url: URL) -> String {
        (try? FileSystem.read(url.path, cap: 4 << 20)).map { String(decoding: $0, as: UTF8.self) } ?? ""
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

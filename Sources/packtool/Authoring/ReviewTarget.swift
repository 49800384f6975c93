#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackModel

/// What `review sign` was given: a whole pack (its folder, or its `stops` folder) or one or more stop folders of one
/// pack, with the pack folder whose pack.json lists the reviewers. Each path is read as what it holds, never by its
/// place alone, so a folder that is neither says so instead of naming a pack.json in some folder above.
struct ReviewTarget {
    /// The pack folder (holding pack.json).
    let pack: URL
    /// The stop folders named; nil for the whole pack (every stop without a current sign-off).
    let stops: [URL]?

    init(_ paths: [String], packDir: String?) throws {
        var packs: [URL] = [], stops: [URL] = []
        for path in paths {
            let url = URL(fileURLWithPath: path).standardizedFileURL
            guard FileSystem.isDirectory(url.path) else {
                throw CommandLineError.io("\(path): no such scene folder (expected PACKDIR/stops/NN-slug, or a pack folder holding pack.json)")
            }
            if Self.holdsPack(url) {
                packs.append(url)
            } else if url.lastPathComponent == "stops", Self.holdsPack(url.deletingLastPathComponent()) {
                packs.append(url.deletingLastPathComponent())
            } else if FileSystem.isRegularFile(url.appendingPathComponent(PackFolder.sceneFile).path) {
                stops.append(url)
            } else {
                throw CommandLineError.io("\(path): neither a pack folder (no pack.json) nor a stop folder (no scene.json)")
            }
        }
        guard packs.isEmpty || paths.count == 1 else {
            throw CommandLineError.usage("give one pack folder (to sign every stop whose sign-off is missing or stale) or stop folders, not both")
        }
        if let pack = packs.first {
            self.pack = packDir.map { URL(fileURLWithPath: $0).standardizedFileURL } ?? pack
            self.stops = nil
            return
        }
        let above = Set(stops.map { $0.deletingLastPathComponent().deletingLastPathComponent().path })
        if let packDir {
            self.pack = URL(fileURLWithPath: packDir).standardizedFileURL
        } else {
            guard above.count == 1, let only = above.first else {
                throw CommandLineError.usage("the stop folders given are in different packs; sign each pack's stops on their own")
            }
            self.pack = URL(fileURLWithPath: only)
        }
        guard Self.holdsPack(self.pack) else {
            throw CommandLineError.io("\(ShownPath.of(self.pack)) holds no pack.json: give the stop folders of a pack (PACKDIR/stops/NN-slug), or --pack-dir PACKDIR")
        }
        self.stops = stops
    }

    static func holdsPack(_ url: URL) -> Bool {
        FileSystem.isRegularFile(url.appendingPathComponent("pack.json").path)
    }
}

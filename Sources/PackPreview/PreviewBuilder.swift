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
import PackAuthoring
import PackImage
import PackLint
import PackMedia
import PackModel

/// Writes a pack's preview site: lints the pack, decodes its plates to WebP (reusing the previous site's), writes the
/// route page, a page per stop, the stylesheet, the script and the story files into a staging folder beside the
/// output, and swaps it in whole. The authored pack is only read; a failure leaves the previous site as it was.
public struct PreviewBuilder {
    public var pack: URL
    public var output: URL
    /// Longest side of a plate as shown, and of a route-page thumbnail, in pixels.
    public var plateSize = 1920
    public var thumbnailSize = 480
    /// Injectable for tests (lint's "not in the future").
    public var currentYear: Int?
    /// How lint hears the stories (packtool gives PackAudio's `StoryVoice`); nil: no voice checks and no voice timeline.
    public var listener: (any VoiceListening)?
    /// Asked between plates and before the swap; true makes the run stop, remove its staging folder and throw
    /// `PreviewError.interrupted` (the CLI sets it from SIGINT, SIGTERM and SIGHUP).
    public var shouldStop: @Sendable () -> Bool = { false }
    /// The user's plate cache, shared by every output folder (the CLI passes `PlateCache.forEnvironment()`); nil keeps
    /// only the earlier site's plates.
    public var plateCache: PlateCache?

    /// The file in every site this tool writes: an existing output folder without it is not replaced.
    public static let marker = ".packtool-preview"

    public init(pack: URL, output: URL) {
        self.pack = pack
        self.output = output
    }

    public struct Summary: Sendable {
        public var index: URL
        public var stops: Int
        public var plates: Int
        /// Plates decoded now, and plates whose every WebP an earlier preview had already made.
        public var decoded: Int
        public var reused: Int
        /// WebP files written now (plates and thumbnails).
        public var written: Int
        public var failedPlates: [ImageError]
        public var errors: Int
        public var warnings: Int
    }

    /// Progress of the plate decoding: plates done out of the total.
    public typealias Progress = @Sendable (_ done: Int, _ total: Int) -> Void

    public func build(progress: @escaping Progress = { _, _ in }) throws -> Summary {
        let target = URL(fileURLWithPath: FileSystem.resolved(output.path))
        // First of all, a site an earlier run set aside and did not get to put back is put back (even if this run
        // then stops at a usage mistake), and killed runs' staging folders are removed.
        if FileSystem.isDirectory(target.deletingLastPathComponent().path) {
            Self.removeAbandonedStaging(in: target.deletingLastPathComponent(), for: target.lastPathComponent)
        }
        try checkPack()
        // The folder holding `--out` and the earlier site are opened once, before the earlier site is checked: the
        // check must be of the folder these handles hold (compared after it), the swap and the reuse of earlier plates
        // go through them, and the swap checks that the names still refer to these folders.
        let name = target.lastPathComponent
        let opened = try? RootedFolder(opening: target.deletingLastPathComponent().path, followingLinkAtRoot: true)
        let openedEarlier = try? opened?.folder(name)
        try checkOutput(target)
        let context = currentYear.map { LintContext(path: pack, currentYear: $0, listener: listener) } ?? LintContext(path: pack, listener: listener)
        let diagnostics = Linter(listener: listener).run(context).diagnostics
        let model = PreviewPack(context: context, diagnostics: diagnostics)

        let parent: RootedFolder
        do { parent = try opened ?? RootedFolder(opening: target.deletingLastPathComponent().path, followingLinkAtRoot: true) } catch {
            throw PreviewError.io("\(ShownPath.of(output)): cannot open the folder it goes in (\(error))")
        }
        var earlier: (folder: RootedFolder, id: SiteFiles.Identity)?
        if let now = SiteFiles.identity(of: name, in: parent) {
            guard let folder = openedEarlier, let id = SiteFiles.identity(of: folder), now.id == id else {
                throw PreviewError.io("\(ShownPath.of(output)): was replaced while this run checked it (the name is now \(now.kind)); it is left as it was and nothing was written")
            }
            earlier = (folder, id)
        }
        // Every write of the run goes beneath the staging folder's handle, opened once when it is made.
        let staging = try SiteFiles.makeStaging(in: parent, for: name)
        do {
            let cache = earlier.flatMap { site in
                (try? site.folder.folder("plates")).map { PlateRenderer.Cache(folder: $0, recorded: SiteShape.recordedPlates(in: site.folder)) }
            }
            let summary = try write(model, into: staging.folder, finalIndex: target.appendingPathComponent("index.html"), cache: cache, progress: progress)
            if shouldStop() { throw PreviewError.interrupted }
            try swap(staging, into: name, earlier: earlier, in: parent)
            return summary
        } catch let error as PreviewError {
            Self.discard(staging, in: parent)
            // Messages name the output the user gave, not the hidden staging folder the files were being written in.
            guard case .io(let message) = error else { throw error }
            // Only paths beneath it: a refusal naming the staging folder itself (swapped for a link) keeps its name.
            throw PreviewError.io(message.replacing(staging.folder.path + "/", with: output.path + (output.path.hasSuffix("/") ? "" : "/")))
        } catch {
            Self.discard(staging, in: parent)
            throw error
        }
    }

    /// Removes this run's staging folder: by its name when the name still is the folder the run made; otherwise (the
    /// name was swapped for something else) only what the run wrote, through its handle — whatever now has the name
    /// is not this run's.
    static func discard(_ staging: (name: String, folder: RootedFolder, id: SiteFiles.Identity), in parent: RootedFolder) {
        if SiteFiles.identity(of: staging.name, in: parent)?.id == staging.id {
            parent.removeTree(staging.name)
        } else {
            staging.folder.removeContents()
        }
    }

    private func checkPack() throws {
        guard FileSystem.isDirectory(pack.path) else {
            throw PreviewError.usage("\(LintContext.display(pack)): \(FileSystem.exists(pack.path) ? "not a folder" : "no such folder") (give a pack folder)")
        }
        guard FileSystem.isRegularFile(pack.appendingPathComponent("pack.json").path) else {
            let isStop = FileSystem.exists(pack.appendingPathComponent(PackFolder.sceneFile).path)
            throw PreviewError.usage("\(LintContext.display(pack)): no pack.json; \(isStop ? "this is a stop folder: give the pack folder two levels up" : "give a pack folder")")
        }
    }

    /// The output may be new, an empty folder, or an earlier preview holding only what a preview writes (`SiteShape`);
    /// never the pack, a folder inside it (the preview would become stray files in the authored tree), a folder holding
    /// it, or the current folder (the shell would be left in a deleted folder).
    private func checkOutput(_ target: URL) throws {
        let packPath = FileSystem.resolved(pack.path)
        let out = target.path
        if FileSystem.isWithin(out, folder: packPath) {
            throw PreviewError.usage("--out \(ShownPath.of(output)) is inside the pack folder; write the preview outside the authored tree")
        }
        if packPath.hasPrefix(out.hasSuffix("/") ? out : out + "/") {
            throw PreviewError.usage("--out \(ShownPath.of(output)) holds the pack folder; choose a folder of its own for the preview")
        }
        let cwd = FileSystem.resolved(".")
        if cwd == out || cwd.hasPrefix(out.hasSuffix("/") ? out : out + "/") {
            throw PreviewError.usage("--out \(ShownPath.of(output)) is the current folder or holds it; the site is replaced whole, so give a folder of its own")
        }
        var info = stat()
        if lstat(out, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw PreviewError.usage("--out \(ShownPath.of(output)) exists and is not a folder") }
            let foreign = SiteShape.foreignEntries(in: target)
            guard foreign.isEmpty else { throw PreviewError.usage(Self.refusal(output.path, foreign, during: false)) }
            var parent = stat()
            if lstat(target.deletingLastPathComponent().path, &parent) == 0, parent.st_dev != info.st_dev {
                throw PreviewError.usage("--out \(ShownPath.of(output)) is a mount point, which cannot be replaced; give a folder inside it")
            }
        } else {
            guard FileSystem.isDirectory(target.deletingLastPathComponent().path) else {
                throw PreviewError.usage("--out \(ShownPath.of(output)): the folder it goes in does not exist")
            }
        }
    }

    /// Whether a plate that did not decode is a placeholder plate (`Placeholder.plateMarker`), to say so instead of
    /// libheif's "no 'ftyp' box".
    private static func isPlaceholder(_ url: URL) -> Bool {
        guard let source = try? ByteSource(fileAt: url) else { return false }
        let count = min(Int(source.size), Placeholder.plateMarker.utf8.count)
        return source.read(at: 0, count: count).map { Placeholder.isPlate(firstBytes: $0) } ?? false
    }

    private func write(_ model: PreviewPack, into site: RootedFolder, finalIndex: URL, cache: PlateRenderer.Cache?, progress: @escaping Progress) throws -> Summary {
        for folder in ["assets", "stops", "plates", "media"] { try SiteFiles.makeFolder(folder, in: site) }
        try SiteFiles.write(PreviewStylesheet.text, to: "assets/preview.css", in: site)
        try SiteFiles.write(PreviewScript.text, to: "assets/preview.js", in: site)
        let platesFolder: RootedFolder
        do { platesFolder = try site.folder("plates") } catch { throw PreviewError.io("\(site.fullPath("plates")): cannot open: \(error)") }

        // Every plate once, with a thumbnail size for each stop's default 16:9 plate.
        var order: [URL] = []
        var sizes: [URL: [Int]] = [:]
        for stop in model.stops {
            for era in stop.eras {
                for crop in PlateCrop.allCases {
                    guard let url = era.plates[crop] else { continue }
                    if sizes[url] == nil { order.append(url); sizes[url] = [plateSize] }
                }
            }
            if let thumb = Self.thumbnailPlate(stop), !(sizes[thumb]?.contains(thumbnailSize) ?? false) { sizes[thumb]?.append(thumbnailSize) }
        }
        let jobs = order.map { PlateRenderer.Job(source: $0, sizes: sizes[$0]!) }
        let total = jobs.count
        progress(0, total)
        var renderer = PlateRenderer()
        renderer.sharedCache = plateCache
        let results = renderer.render(jobs, into: platesFolder, cache: cache, shouldStop: shouldStop) { progress($0, total) }
        if shouldStop() { throw PreviewError.interrupted }
        var plates: [URL: Result<RenderedPlate, ImageError>] = [:]
        var thumbnails: [URL: RenderedPlate] = [:]
        var failed: [ImageError] = []
        var decoded = 0, reused = 0, written = 0
        for (job, result) in zip(jobs, results) {
            switch result {
            case .success(let rendered):
                plates[job.source] = .success(rendered[0])
                if rendered.count > 1 { thumbnails[job.source] = rendered[1] }
                let fresh = rendered.filter { !$0.reused }.count
                written += fresh
                if fresh > 0 { decoded += 1 } else { reused += 1 }
            case .failure(let decoding):
                let error = Self.isPlaceholder(job.source)
                    ? ImageError(file: decoding.file, "it is the placeholder `packtool new stop` wrote; replace it with the era's plate as HEIC") : decoding
                plates[job.source] = .failure(error)
                failed.append(error)
            }
        }
        // A plate that cannot be shown is a finding of its stop, beside lint's: counted on the route page's badges and
        // listed in the stop's findings with the file it concerns.
        var model = model
        for i in model.stops.indices {
            let failures = model.stops[i].eras.flatMap { era in PlateCrop.allCases.compactMap { era.plates[$0] } }
                .compactMap { url -> ImageError? in if case .failure(let error)? = plates[url] { return error } else { return nil } }
            var seen = Set<String>()
            for failure in failures where seen.insert(failure.file).inserted {
                model.stops[i].findings.append(Diagnostic(code: "plate", severity: .error, message: "the preview cannot show this plate: \(failure.message)",
                                                          location: .init(file: failure.file), hint: "export the plate again as HEIC (packtool lint explains what is wrong with it)"))
            }
        }
        var stopThumbnails: [String: RenderedPlate] = [:]
        for stop in model.stops {
            if let url = Self.thumbnailPlate(stop), let thumb = thumbnails[url] ?? (try? plates[url]?.get()) { stopThumbnails[stop.folder] = thumb }
        }

        try SiteFiles.write(RoutePage(pack: model, thumbnails: stopThumbnails).html(), to: "index.html", in: site)
        for (i, stop) in model.stops.enumerated() {
            let (audio, transcript) = try copyStory(stop, into: site)
            let page = StopPage(pack: model, index: i, plates: plates, audioPath: audio, transcriptDataURL: transcript)
            try SiteFiles.write(try page.html(), to: "stops/" + stop.page, in: site)
        }
        // The marker last: it vouches for every WebP the site holds.
        let webps = Dictionary(results.compactMap { try? $0.get() }.flatMap { $0 }.map { ($0.fileName, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        try SiteFiles.write(SiteShape.marker(pack: model.id, plates: webps.map { ($0.key, $0.value) }), to: Self.marker, in: site)
        let all = (model.stops.flatMap(\.findings) + model.packFindings).filter { $0.code != "plate" }
        return Summary(index: finalIndex, stops: model.stops.count, plates: jobs.count, decoded: decoded, reused: reused, written: written, failedPlates: failed,
                       errors: all.filter { $0.severity == .error }.count, warnings: all.filter { $0.severity == .warning }.count)
    }

    /// The plate a stop's thumbnail is made from: its default era's 16:9 plate (or its first era's).
    static func thumbnailPlate(_ stop: PreviewStop) -> URL? {
        (stop.eras.first { $0.isDefault } ?? stop.eras.first)?.plates[.landscape]
    }

    /// Copies the story's audio into `media/<page>/` and returns its path from the stop page, with the transcript as a
    /// data: URL (Chromium will not load a text track from a file:// URL, which it treats as another origin).
    private func copyStory(_ stop: PreviewStop, into site: RootedFolder) throws -> (String?, String?) {
        guard let story = stop.story else { return (nil, nil) }
        var audioPath: String?
        if let audio = story.audio {
            let folderName = String(stop.page.dropLast(".html".count))
            let folder = "media/" + folderName
            try SiteFiles.makeFolder(folder, in: site)
            let ext = audio.pathExtension.lowercased()
            let name = "story." + (["m4a", "mp4", "aac"].contains(ext) ? ext : "m4a")
            do { try SiteFiles.copy(audio, to: folder + "/" + name, in: site, cap: 512 << 20) } catch let error as PreviewError {
                throw error
            } catch {
                throw PreviewError.io("\(LintContext.display(audio)): cannot copy the story: \(error)")
            }
            audioPath = "../media/\(folderName)/\(name)"
        }
        var transcript: String?
        if let vtt = story.transcript, !story.cues.isEmpty, let bytes = try? FileSystem.read(vtt.path, cap: 4 << 20) {
            transcript = "data:text/vtt;charset=utf-8;base64," + bytes.base64EncodedString()
        }
        return (audioPath, transcript)
    }

    /// Puts the finished site in place: swapped with the old one in one step where the file system can (the old one,
    /// now under the staging name, is removed after); elsewhere the old one is renamed aside first, and put back if
    /// the new one cannot take its place. Only when the staging name still is the folder this run made, and `--out`
    /// still is the folder it checked (or still nothing): a name swapped for a link or another folder while the run
    /// worked is refused, named, and left as it is.
    private func swap(_ staging: (name: String, folder: RootedFolder, id: SiteFiles.Identity), into name: String,
                      earlier: (folder: RootedFolder, id: SiteFiles.Identity)?, in parent: RootedFolder) throws {
        let stagingNow = SiteFiles.identity(of: staging.name, in: parent)
        guard stagingNow?.id == staging.id else {
            let found = stagingNow.map { "is now \($0.kind)" } ?? "is gone"
            throw PreviewError.io("\(parent.fullPath(staging.name)): the staging folder this run made was replaced while it worked (the name \(found)); "
                + "nothing was put in place, \(ShownPath.of(output)) is as it was, and what has that name now is left alone")
        }
        let outNow = SiteFiles.identity(of: name, in: parent)
        guard let earlier else {
            guard outNow == nil else {
                throw PreviewError.io("\(ShownPath.of(output)): \(outNow!.kind) appeared under this name while the run worked; it is left as it was and nothing was put in place")
            }
            guard SiteFiles.rename(staging.name, to: name, in: parent) else { throw PreviewError.io("\(ShownPath.of(output)): cannot move the preview into place: \(FileSystem.reason())") }
            return
        }
        guard outNow?.id == earlier.id else {
            let found = outNow.map { "is now \($0.kind)" } ?? "is gone"
            throw PreviewError.io("\(ShownPath.of(output)): is no longer the folder this run checked (the name \(found)); it is left as it was and nothing was put in place")
        }
        let oldSite = parent.fullPath(staging.name)
        if SiteFiles.exchange(staging.name, name, in: parent) {
            // Both names must now refer to the two folders this run opened; anything else was swapped in between the
            // check and the exchange: swap back and refuse.
            guard SiteFiles.identity(of: name, in: parent)?.id == staging.id, SiteFiles.identity(of: staging.name, in: parent)?.id == earlier.id else {
                _ = SiteFiles.exchange(staging.name, name, in: parent)
                throw PreviewError.io("\(ShownPath.of(output)): was replaced while the run put the preview in place; it is left as it was")
            }
            // The old site is now under the staging name. Anything added to it while this run worked is not ours to
            // delete: swap back, so the folder is as the user left it, and say what was found.
            let foreign = SiteShape.foreignEntries(in: URL(fileURLWithPath: oldSite))
            guard foreign.isEmpty else {
                if SiteFiles.exchange(staging.name, name, in: parent), SiteFiles.identity(of: staging.name, in: parent)?.id == staging.id {
                    parent.removeTree(staging.name)
                }
                throw PreviewError.usage(Self.refusal(output.path, foreign, during: true))
            }
            parent.removeTree(staging.name)
            return
        }
        // A file system that cannot swap folders in one step (some network and FUSE file systems): the old site is
        // renamed aside first (under a name of its own, never over an existing one), and put back by the next run if
        // this one is killed before the new one takes its place.
        var aside = ""
        for _ in 0..<16 {
            let candidate = Self.asideName(for: name)
            if SiteFiles.identity(of: candidate, in: parent) == nil { aside = candidate; break }
        }
        guard !aside.isEmpty, SiteFiles.rename(name, to: aside, in: parent) else {
            throw PreviewError.io("\(ShownPath.of(output)): cannot replace the previous preview: \(FileSystem.reason())")
        }
        guard SiteFiles.identity(of: aside, in: parent)?.id == earlier.id else {
            _ = SiteFiles.rename(aside, to: name, in: parent)
            throw PreviewError.io("\(ShownPath.of(output)): was replaced while the run put the preview in place; it is left as it was")
        }
        let foreign = SiteShape.foreignEntries(in: URL(fileURLWithPath: parent.fullPath(aside)))
        guard foreign.isEmpty else {
            _ = SiteFiles.rename(aside, to: name, in: parent)
            throw PreviewError.usage(Self.refusal(output.path, foreign, during: true))
        }
        guard SiteFiles.rename(staging.name, to: name, in: parent) else {
            let reason = FileSystem.reason()
            _ = SiteFiles.rename(aside, to: name, in: parent)
            throw PreviewError.io("\(ShownPath.of(output)): cannot move the preview into place: \(reason)")
        }
        parent.removeTree(aside)
    }

    /// Why an output folder is not replaced: the first few entries a preview did not write.
    static func refusal(_ out: String, _ foreign: [String], during: Bool) -> String {
        let listed = foreign.prefix(5).joined(separator: ", ") + (foreign.count > 5 ? " and \(foreign.count - 5) more" : "")
        return "--out \(out) holds what packtool preview did not write (\(listed))\(during ? ", added while this run worked; it is left as it was" : "")"
            + "; the site is replaced whole, so give a new or empty folder, or move those out"
    }

    /// `.<output>.packtool-preview-old-<pid>-<random>`: where a site is set aside on a file system that cannot swap.
    static func asideName(for name: String) -> String {
        ".\(name).packtool-preview-old-\(getpid())-\(String(UInt64.random(in: 0...UInt64.max), radix: 36))"
    }

    /// Staging and set-aside folders of runs that were killed (their process is gone) are cleared up: a site set aside
    /// by a run killed before its new site took its place is put back, and the rest removed — only when it holds
    /// nothing but what a preview writes. Folders of a run still going (this process's own included) are left alone.
    static func removeAbandonedStaging(in parentURL: URL, for name: String) {
        guard let parent = try? RootedFolder(opening: parentURL.path, followingLinkAtRoot: true) else { return }
        let aside = ".\(name).packtool-preview-old-", staging = ".\(name).packtool-preview-"
        for entry in ((try? parent.list()) ?? []).sorted() {
            let isAside = entry.hasPrefix(aside)
            guard isAside || entry.hasPrefix(staging), let pid = runID(entry.dropFirst(isAside ? aside.count : staging.count)) else { continue }
            if pid == getpid() || kill(pid, 0) == 0 || errno == EPERM { continue }  // a run still going
            if isAside, !parent.exists(name), SiteFiles.rename(entry, to: name, in: parent) { continue }
            // Removed only when it holds nothing but what a preview writes: a folder that merely has such a name is
            // left alone.
            guard let found = SiteFiles.identity(of: entry, in: parent) else { continue }
            if !found.isFolder {
                if found.kind == RegularFile.kind(S_IFLNK) { try? parent.remove(entry) }
                continue
            }
            if SiteShape.foreignEntries(in: parentURL.appendingPathComponent(entry), partial: true).isEmpty { parent.removeTree(entry) }
        }
    }

    /// The process id in a staging suffix: `<pid>` (older runs) or `<pid>-<random>`.
    static func runID(_ suffix: Substring) -> Int32? {
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 1 || (parts.count == 2 && !parts[1].isEmpty && parts[1].allSatisfy { $0.isLetter || $0.isNumber }) else { return nil }
        guard let pid = Int32(parts[0]), pid > 0 else { return nil }
        return pid
    }
}

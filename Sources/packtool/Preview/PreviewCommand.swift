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
import PackAudio
import PackAuthoring
import PackModel
import PackPreview

/// `packtool preview PACK`: writes the pack as the app will show it, as a static site to open in any browser.
enum PreviewCommand: Command {
    static let name = "preview"
    static let summary = "write the pack as the app shows it, as a site to open in any browser"
    static let help = """
        usage: packtool preview PACK [--out DIR] [--open] [--quiet] [--serve [--port N] [--host H]]

        Writes a static site of the pack at PACK that works from file:// with no server and no network: the route
        with a map of every stop's anchor, bearing, field of view and target; a page per stop with each era's plate in
        16:9 and 9:16 (decoded from HEIC to WebP), the conjecture mask hatched over it (click a region for its note),
        a compare slider between eras, the story with its transcript following the audio, the sources and licences,
        the historian's sign-off and whether it is current, and lint's findings at file:line:col.

        Plates are decoded on every core and kept in the user's cache folder ($PACKTOOL_CACHE_DIR/plates, else
        $XDG_CACHE_HOME/packtool/plates, else ~/.cache/packtool/plates; ~/Library/Caches/packtool/plates on macOS)
        under the SHA-256 of the HEIC and the decode settings, shared by every output folder: a rerun decodes only
        plates that changed. A cache entry is checked against its own SHA-256 before it is copied into a site.
        The site is written beside DIR and swapped in whole (in one step where the file system can); the pack is
        only read. An earlier preview is replaced only while it holds nothing but what the preview wrote.

        Exit codes: 0 written and lint found no errors, 1 written but the pages show errors (lint errors or a plate
        that cannot be decoded), 2 usage or I/O error (nothing written; an earlier preview is left as it was).
        With --serve: 0 when stopped with Ctrl-C, 2 when the first build or the port fails.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        try PreviewServe.checkOptions(serve: a.flag("--serve"), port: a.value("--port"), host: a.value("--host"))
        guard a.positionals.count == 1, let packPath = a.positionals.first else {
            throw CommandLineError.usage(a.positionals.isEmpty ? "expected a PACK folder" : "expected one PACK folder, got \(a.positionals.count)")
        }
        let pack = URL(fileURLWithPath: packPath)
        let outPath = a.value("--out") ?? defaultOutput(forPack: packPath)
        guard !outPath.isEmpty else { throw CommandLineError.usage("--out needs a folder") }
        if a.flag("--serve") {
            return try PreviewServe.run(pack: packPath, output: URL(fileURLWithPath: outPath), port: a.value("--port"), host: a.value("--host"),
                                        plateCache: PlateCache.forEnvironment(), quiet: a.flag("--quiet"), open: a.flag("--open"))
        }
        var builder = PreviewBuilder(pack: pack, output: URL(fileURLWithPath: outPath))
        builder.plateCache = PlateCache.forEnvironment()
        builder.listener = StoryVoice.standard()
        PreviewInterruption.install()
        builder.shouldStop = { PreviewInterruption.received != 0 }
        let bar = a.flag("--quiet") ? nil : PlateProgressBar()
        let summary: PreviewBuilder.Summary
        do {
            summary = try builder.build { done, total in bar?.show(done, total) }
        } catch let error as PreviewError {
            bar?.finish()
            switch error {
            case .usage(let m): throw CommandLineError.usage(m)
            case .io(let m): throw CommandLineError.io(m)
            case .interrupted: PreviewInterruption.endAsSignalled()
            }
        }
        bar?.finish()
        // Names from the pack are printed with control characters escaped, as every message is.
        for failure in summary.failedPlates { Output.err("packtool preview: \(Output.escapingControls("\(failure.file): cannot show this plate: \(failure.message)"))\n") }
        let lint = summary.errors + summary.warnings == 0 ? "lint: clean"
            : "lint: \(summary.errors) error\(summary.errors == 1 ? "" : "s"), \(summary.warnings) warning\(summary.warnings == 1 ? "" : "s") (shown on the pages)"
        Output.out("preview of \(Output.escapingControls(ShownPath.of(packPath))): \(summary.stops) stop\(summary.stops == 1 ? "" : "s"), \(summary.plates) plate\(summary.plates == 1 ? "" : "s") (\(summary.decoded) decoded, \(summary.reused) reused)\(summary.failedPlates.isEmpty ? "" : ", \(summary.failedPlates.count) cannot be shown"); \(lint)\n")
        Output.out("open: \(summary.index.absoluteString)\n")
        if a.flag("--open") { openInBrowser(summary.index) }
        return summary.errors > 0 || !summary.failedPlates.isEmpty ? 1 : 0
    }

    /// `./PACKNAME-preview`, or beside the pack when the current folder is inside it (`packtool preview .` from the
    /// pack's own folder must not write into the authored tree).
    private static func defaultOutput(forPack path: String) -> String {
        let pack = FileSystem.resolved(path), cwd = FileSystem.resolved(".")
        let name = URL(fileURLWithPath: pack).lastPathComponent + "-preview"
        guard cwd == pack || cwd.hasPrefix(pack + "/") else { return name }
        return URL(fileURLWithPath: pack).deletingLastPathComponent().appendingPathComponent(name).path
    }

    /// Hands the page to the desktop (`xdg-open` on Linux, `open` on macOS); a machine without one only gets a note.
    static func openInBrowser(_ url: URL) {
        #if os(macOS)
        let opener = "open"
        #else
        let opener = "xdg-open"
        #endif
        var pid = pid_t()
        let argv: [UnsafeMutablePointer<CChar>?] = [strdup(opener), strdup(url.absoluteString), nil]
        defer { argv.forEach { free($0) } }
        // The environment as it is (DISPLAY, BROWSER): `environ` on Linux; Darwin's Swift overlay does not have it.
        #if os(Linux)
        let environment = environ
        #else
        let environment = _NSGetEnviron().pointee
        #endif
        guard posix_spawnp(&pid, opener, nil, nil, argv, environment) == 0 else {
            Output.err("packtool preview: could not run \(opener) to open the page; open it yourself: \(url.absoluteString)\n")
            return
        }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if status != 0 { Output.err("packtool preview: \(opener) could not open the page; open it yourself: \(url.absoluteString)\n") }
    }
}


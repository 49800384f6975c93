#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel
import PackPublish
import PackVerify

/// `packtool verify PATH --root ROOT`: checks a published tree, an archive or a manifest against a pinned root.
enum VerifyCommand: Command {
    static let name = "verify"
    static let summary = "verify a published tree, pack archive or manifest against a pinned root"
    static let help = """
        usage: packtool verify PATH --root ROOT.json [--at TIME] [--format text|json]

        PATH is a published tree (a folder with index.json), a pack or delta archive (.tar) or a manifest (.json).
        Checks the root chain from the pinned ROOT, then each signed document as a client installing it would
        (signatures and thresholds per role; ids, names, paths and Trip Pass length; creation times and expiry at
        --at, default now), that the index names each manifest and archive by size and SHA-256, and every file of
        every archive. In a tree, each delta leads to the scene the manifest names, and one from an earlier version
        starts from that version as the tree's earlier release lists it (keeping only files it had, removing exactly
        what is gone); every scene changed since an earlier release has its version-0 delta, the one phones fall back
        on; and no scene version has two contents across the releases. A refusal ends with the code a client would
        give.
        Prints what it verified; exit 1 with the reason when anything fails, 2 when a file it needs is missing or
        unreadable.

        """
    static let options: [CommandOption] = [
        CommandOption("--root", "ROOT.json", "the pinned root the chain starts from"),
        CommandOption("--at", "TIME", "judge expiry and creation times at TIME (RFC 3339, or a date meaning 00:00Z; default now)"),
        .format("text, or one JSON object: path, kind, verified, what was checked, or the refusal's code and message"),
    ]
    static let examples = [
        "packtool verify demo-out/cdn --root demo-out/state/root/1.root.json",
        "packtool verify demo-out/cdn/packs/royal-mile/1/royal-mile-1.tar --root demo-out/state/root/1.root.json --at 2027-01-01 --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one PATH") }
        let rootPath = try a.required("--root")
        let rootData: Data
        do { rootData = try SizeCaps.read(URL(fileURLWithPath: rootPath), cap: SizeCaps.root) } catch { throw CommandLineError.io("\(error)") }
        var now = Date()
        if let at = try a.time("--at") { now = at }
        let path = a.positionals[0]
        let json = try OutputFormat.json(a)
        let kind = FileSystem.isDirectory(path) ? "tree" : path.hasSuffix(".tar") ? "archive" : "manifest"
        guard FileSystem.exists(path) else { throw CommandLineError.io("\(path): no such file or folder") }
        // A FIFO or device would block the reads below (or feed them forever): only folders and regular files.
        guard FileSystem.isDirectory(path) || FileSystem.isRegularFile(path) else { throw CommandLineError.io("\(path): not a regular file or folder") }
        let verifier: TreeVerifier
        do { verifier = try TreeVerifier(pinnedRoot: rootData, now: now) } catch {
            throw CommandLineError.failure("\(rootPath): not a usable root: \(error); \(FirstPin.rootHint)")
        }
        do {
            let lines: [String]
            if FileSystem.isDirectory(path) {
                lines = try verifier.verifyTree(URL(fileURLWithPath: path))
            } else if path.hasSuffix(".tar") {
                lines = try verifier.verifyArchive(URL(fileURLWithPath: path))
            } else {
                let manifest = try verifier.verifyManifest(try SizeCaps.read(URL(fileURLWithPath: path), cap: SizeCaps.manifest))
                lines = ["\(manifest.pack) version \(manifest.version): manifest signed by the manifest role, expires \(manifest.expires), \(manifest.archiveEntries.count) files listed"]
            }
            if json {
                try JSONValue.object(["path": .string(path), "kind": .string(kind), "verified": true, "at": .string(Timestamp.format(now)),
                                      "checked": .strings(lines)]).print()
                return 0
            }
            Output.out("verified \(path)\n" + lines.map { "  \($0)\n" }.joined())
            return 0
        } catch let f as VerificationFailure {
            // With --format json a refusal is a result too: the object says so, and the exit code and message stay.
            if json, f.isRefusal {
                try JSONValue.object(["path": .string(path), "kind": .string(kind), "verified": false, "at": .string(Timestamp.format(now)),
                                      "code": .string(f.code), "message": .string(f.message)]).print()
            }
            throw f.isRefusal ? CommandLineError.failure("\(path): verification failed: \(f.message) [\(f.code)]") : CommandLineError(f)
        } catch {
            throw CommandLineError.failure("\(path): verification failed: \(error)")
        }
    }
}

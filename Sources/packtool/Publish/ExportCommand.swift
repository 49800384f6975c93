#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackPublish
import PackModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `packtool export`: the whole CDN tree of what a state has published, into a new folder, from the state alone.
enum ExportCommand: Command {
    static let name = "export"
    static let summary = "write the CDN tree of everything a state has published into a new folder (a lost tree, a mirror)"
    static let help = """
        usage: packtool export --state DIR --manifest-key MANIFEST.pem... --index-key INDEX.pem... --publish OUT [--index-days 7]
               packtool export … --publish s3://BUCKET/PREFIX [--endpoint URL] [--region R] [--profile NAME] …

        Writes into OUT (which must not exist, or be empty) the tree `sign` publishes, for the newest release of every
        pack the ledger in DIR records: root/N.root.json for every root, packs/<id>/<version>/manifest.json and the
        archive (the state's kept copy, checked against the ledger's SHA-256), the scenes' deltas (rebuilt from the
        state's stored files; the same bytes sign wrote, given the same keys), and a fresh index.json signed by the
        index key, whose version the ledger records. Use it when a published folder is lost, or to start a mirror,
        without publishing a new version. Any failure removes what was written; the ledger is unchanged.
        With an s3:// destination the tree is exported into DIR/uploads/BUCKET/PREFIX (replacing what was there
        only once the export is complete), then uploaded as `packtool upload` does, index.json last; the store
        flags are upload's (see `packtool upload --help`).
        Exit codes: 0 exported, 1 refused (keys, a kept copy that does not match the ledger), 2 usage or I/O error.

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder"),
        CommandOption("--manifest-key", "MANIFEST.pem", "a manifest role private key; repeatable", aliases: ["--key"]),
        CommandOption("--index-key", "INDEX.pem", "an index role private key; repeatable"),
        PassphraseFlags.option,
        CommandOption("--publish", "OUT|s3://BUCKET/PREFIX", "where to write the tree (a new or empty folder, or a bucket)"),
        CommandOption("--index-days", "N", "the fresh index expires N days from now (default 7)"),
        .format("text, or one JSON object: the tree, the packs and versions exported, the index version"),
    ] + CommandOption.objectStore + CommandOption.uploadSizes
    static let examples = [
        "packtool export --state demo-out/state --manifest-key keys-example/manifest.pem --index-key keys-example/index.pem --publish mirror",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("export takes no PACKDIR; it reads the state folder") }
        let manifestPaths = a.values("--manifest-key"), indexPaths = a.values("--index-key")
        guard !manifestPaths.isEmpty else { throw CommandLineError.usage("give the manifest key with --manifest-key (it signs the deltas)") }
        guard !indexPaths.isEmpty else { throw CommandLineError.usage("give the index key with --index-key") }
        let store = try ObjectStoreFlags.destination(try a.required("--publish"), state: try a.required("--state"), a)
        // To a store: exported beside the kept upload folder first, so a failed export leaves the last one whole.
        let output = try store.map { $0.2.deletingLastPathComponent().appendingPathComponent(".export-\(getpid())-" + $0.2.lastPathComponent) }
            ?? URL(fileURLWithPath: a.required("--publish"))
        if store != nil { do { try FileSystem.makeFolders(output.deletingLastPathComponent().path) } catch { throw CommandLineError.io("\(error)") } }
        var options = TreeExporter.Options(state: URL(fileURLWithPath: try a.required("--state")), output: output,
                                           manifestKeys: try SigningKeys.privateKeys(manifestPaths, role: RootDocument.Role.manifest, a),
                                           indexKeys: try SigningKeys.privateKeys(indexPaths, role: RootDocument.Role.index, a))
        options.indexLifetime = try a.days("--index-days", default: 7)
        let json = try OutputFormat.json(a)
        do {
            let result = try TreeExporter(options: options).export()
            let releases = result.releases.map { "\($0.pack) version \($0.version)" }.joined(separator: ", ")
            func report(_ tree: String) -> [String: JSONValue] {
                ["tree": .string(tree), "deltas": .int(result.deltas), "indexVersion": .int(result.indexVersion),
                 "releases": .array(result.releases.map { ["pack": .string($0.pack), "version": .int($0.version)] })]
            }
            guard let (location, settings, folder) = store else {
                if json { try JSONValue.object(report(ShownPath.of(output))).print(); return 0 }
                Output.out("exported \(releases) into \(ShownPath.of(output))\n  deltas: \(result.deltas)\n  index: \(ShownPath.of(output.appendingPathComponent(PublishLayout.index))) version \(result.indexVersion)\n")
                return 0
            }
            try replace(folder, with: output)
            if json { return try UploadCommand.upload(tree: folder, to: location, settings: settings, arguments: a, quiet: true, json: report(ShownPath.of(folder))) }
            Output.out("exported \(releases) into \(ShownPath.of(folder))\n  deltas: \(result.deltas)\n  index: \(ShownPath.of(folder.appendingPathComponent(PublishLayout.index))) version \(result.indexVersion)\n")
            return try UploadCommand.upload(tree: folder, to: location, settings: settings, arguments: a, quiet: false)
        } catch let e as CommandLineError {
            throw e
        } catch let e as PublishError {
            if case .io(let message) = e { throw CommandLineError.io(message + "; nothing was exported") }
            throw CommandLineError.failure(e.description + "; nothing was exported")
        } catch {
            throw CommandLineError.io("\(error); nothing was exported")
        }
    }

    /// Puts the finished export at `folder` in place of the last one: the old folder is moved aside, the new one
    /// renamed in, then the old one removed, so the kept tree is always one whole export or the other.
    static func replace(_ folder: URL, with exported: URL) throws {
        let aside = folder.deletingLastPathComponent().appendingPathComponent(".replaced-\(getpid())-" + folder.lastPathComponent)
        let hadOne = FileSystem.exists(folder.path)
        if hadOne {
            do { try FileSystem.rename(folder, to: aside) } catch { throw CommandLineError.io("\(ShownPath.of(folder)): cannot move it aside (\(error))") }
        }
        do { try FileSystem.rename(exported, to: folder) } catch {
            let reason = "\(error)"
            if hadOne { try? FileSystem.rename(aside, to: folder) }
            FileSystem.removeTree(exported.path)
            throw CommandLineError.io("\(ShownPath.of(folder)): cannot put the export in place (\(reason)); nothing was uploaded")
        }
        if hadOne { FileSystem.removeTree(aside.path) }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackPublish
import PackModel

/// `packtool export`: the whole CDN tree of what a state has published, into a new folder, from the state alone.
enum ExportCommand: Command {
    static let name = "export"
    static let summary = "write the CDN tree of everything a state has published into a new folder (a lost tree, a mirror)"
    static let help = """
        usage: packtool export --state DIR --key MANIFEST.pem... --index-key INDEX.pem... --publish OUT [--index-days 7]

        Writes into OUT (which must not exist, or be empty) the tree `sign` publishes, for the newest release of every
        pack the ledger in DIR records: root/N.root.json for every root, packs/<id>/<version>/manifest.json and the
        archive (the state's kept copy, checked against the ledger's SHA-256), the scenes' deltas (rebuilt from the
        state's stored files; the same bytes sign wrote, given the same keys), and a fresh index.json signed by the
        index key, whose version the ledger records. Use it when a published folder is lost, or to start a mirror,
        without publishing a new version. Any failure removes what was written; the ledger is unchanged.
        Exit codes: 0 exported, 1 refused (keys, a kept copy that does not match the ledger), 2 usage or I/O error.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, options: ["--state", "--key", "--index-key", "--publish", "--index-days"], flags: [])
        guard a.positionals.isEmpty else { throw CommandLineError.usage("export takes no PACKDIR; it reads the state folder") }
        let manifestPaths = a.values("--key"), indexPaths = a.values("--index-key")
        guard !manifestPaths.isEmpty else { throw CommandLineError.usage("give the manifest key with --key (it signs the deltas)") }
        guard !indexPaths.isEmpty else { throw CommandLineError.usage("give the index key with --index-key") }
        let output = URL(fileURLWithPath: try a.required("--publish"))
        var options = TreeExporter.Options(state: URL(fileURLWithPath: try a.required("--state")), output: output,
                                           manifestKeys: try SigningKeys.privateKeys(manifestPaths, role: RootDocument.Role.manifest),
                                           indexKeys: try SigningKeys.privateKeys(indexPaths, role: RootDocument.Role.index))
        options.indexLifetime = try a.number("--index-days", default: 7) * 86_400
        do {
            let result = try TreeExporter(options: options).export()
            let releases = result.releases.map { "\($0.pack) version \($0.version)" }.joined(separator: ", ")
            Output.out("exported \(releases) into \(output.path)\n  deltas: \(result.deltas)\n  index: \(output.path)/index.json version \(result.indexVersion)\n")
            return 0
        } catch let e as PublishError {
            if case .io(let message) = e { throw CommandLineError.io(message + "; nothing was exported") }
            throw CommandLineError.failure(e.description + "; nothing was exported")
        } catch {
            throw CommandLineError.io("\(error); nothing was exported")
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackAuthoring
import PackPublish

/// `packtool ledger list | verify`: the publisher's release history and its integrity.
enum LedgerCommand: Command {
    static let name = "ledger"
    static let summary = "list releases or verify the release ledger's hash chain and stored copies"
    static let help = """
        usage: packtool ledger list --state DIR
               packtool ledger verify --state DIR [--deep]

        list prints every release in order with its chain hash. verify recomputes the hash chain, checks each stored
        manifest against its recorded hash and the scene and file rows against the signed manifest, and checks the
        stored copies of published files (sizes; contents too with --deep). Exit 1 when anything was edited.

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder holding ledger.sqlite"),
        .flag("--deep", "also hash the stored copies of published files", only: ["verify"]),
        .format("text, or one JSON object: the releases (list) or the problems found (verify)"),
    ]
    static let examples = [
        "packtool ledger list --state demo-out/state",
        "packtool ledger verify --state demo-out/state --deep --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        let state = URL(fileURLWithPath: try a.required("--state"))
        guard FileManager.default.fileExists(atPath: state.appendingPathComponent(Ledger.fileName).path) else {
            throw CommandLineError.io("\(ShownPath.of(state)): no ledger (\(Ledger.fileName)) here")
        }
        let ledger: Ledger
        do { ledger = try Ledger(state: state) } catch { throw CommandLineError.io("\(error)") }
        let json = try OutputFormat.json(a)
        switch a.positionals.first {
        case "list":
            let releases = try ledger.releases()
            if json {
                try JSONValue.object(["releases": .array(releases.map { r in
                    ["sequence": .int(Int(r.sequence)), "pack": .string(r.pack), "version": .int(Int(r.version)), "created": .string(r.created),
                     "archiveSize": .int(Int(r.archiveSize)), "hash": .string(r.hash)]
                })]).print()
                return 0
            }
            if releases.isEmpty { Output.out("no releases\n") }
            for r in releases {
                Output.out("\(r.sequence)  \(r.pack) version \(r.version)  \(r.created)  archive \(r.archiveSize) bytes  chain \(r.hash.prefix(16))…\n")
            }
            return 0
        case "verify":
            let problems = try ledger.verify(deep: a.flag("--deep"))
            if json {
                try JSONValue.object(["intact": .bool(problems.isEmpty), "releases": .int(try ledger.releases().count), "deep": .bool(a.flag("--deep")),
                                      "problems": .strings(problems.map { "\($0)" })]).print()
                return problems.isEmpty ? 0 : 1
            }
            if problems.isEmpty {
                Output.out("ledger intact: \(try ledger.releases().count) release(s), hash chain and stored copies check out\n")
                return 0
            }
            Output.out(problems.map { "problem: \($0)\n" }.joined())
            return 1
        default:
            throw CommandLineError.usage("expected `ledger list` or `ledger verify`")
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackPublish

/// `packtool status`: what expires when, in the state and as published; exits 1 when something needs doing.
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show the root, index, manifests and revocations with days to expiry; exit 1 when one needs attention"
    static let help = """
        usage: packtool status [--state DIR] [--tree DEST|URL|s3://BUCKET/PREFIX] [--warn-days 3] [--format text|json]

        For the root, the index, every pack's manifest and the revocation list: the version in the state folder and
        as published, when it expires and the days left. Exits 1 when anything expires within --warn-days (default
        3) or the published tree lags the state (a root, a release or a revocation list not yet published), so a
        cron job or a CI schedule can alert; 0 when all is well; 2 on usage or I/O errors. --tree may be a folder,
        an s3:// location (with upload's store flags) or the http(s):// address clients use.
        Published files are checked against the index as far as is quick: every manifest and the revocation list
        by SHA-256, each archive by size (on a folder or s3://; not over http(s)://). Archives are never hashed
        here — `packtool verify` reads them whole.

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder"),
        CommandOption("--tree", "DEST|URL|s3://BUCKET/PREFIX", "the published tree to read (a folder, s3:// or the clients' http(s):// address)", aliases: ["--cdn"]),
        CommandOption("--warn-days", "N", "exit 1 when anything expires within N days (default 3)"),
        .format(),
        CommandOption.timeout("15"),
    ] + CommandOption.objectStore
    static let examples = [
        "packtool status --state demo-out/state --tree demo-out/cdn",
        "packtool status --state ~/royal-mile-state --tree https://cdn.example.org/royal-mile --warn-days 3 --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("status takes no positional arguments") }
        let json = try OutputFormat.json(a)
        let tree = try a.value("--tree").map { try PublishedTreeFlags.open($0, a, writable: false) }
        let state = a.value("--state").map { URL(fileURLWithPath: $0) }
        guard state != nil || tree != nil else { throw CommandLineError.usage("give --state, --tree, or both") }
        let status: CatalogueStatus
        do { status = try CatalogueStatus.check(state: state, tree: tree, warnDays: try a.number("--warn-days", default: 3)) } catch let e as PublishError {
            switch e {
            case .io(let m), .objectStore(let m): throw CommandLineError.io(m)
            default: throw CommandLineError.failure(e.description)
            }
        }
        if json {
            // One object, as every command's --format json prints: the rows and the verdict the exit code gives.
            struct Report: Encodable { let documents: [CatalogueStatus.Row]; let needsAttention: Bool }
            Output.out(String(decoding: try OutputFormat.encoder.encode(Report(documents: status.rows, needsAttention: status.needsAttention)), as: UTF8.self) + "\n")
        } else {
            func col(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(1, w - s.count)) }
            let names = status.rows.map { row in row.pack.map { "\(row.kind) \($0)" } ?? row.kind }
            let width = (names.map(\.count).max() ?? 0) + 2
            var text = col("what", width) + "state  published  expires               days left\n"
            for (row, what) in zip(status.rows, names) {
                text += col(what, width) + col(row.stateVersion.map(String.init) ?? "-", 7) + col(row.publishedVersion.map(String.init) ?? "-", 11)
                    + col(row.expires ?? "-", 22) + (row.daysLeft.map { String($0) } ?? "-") + "\n"
                if let problem = row.problem { text += "  ! \(problem)\n" }
            }
            if let tree, tree.location.hasPrefix("http") || tree.location.hasPrefix("file:") {
                text += "(archives were not checked over \(tree.location.hasPrefix("file:") ? "file://" : "HTTP"); `packtool verify` reads them)\n"
            }
            text += status.needsAttention ? "needs attention\n" : "all well\n"
            Output.out(text)
        }
        return status.needsAttention ? 1 : 0
    }
}

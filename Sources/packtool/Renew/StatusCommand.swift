#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackModel
import PackPublish

/// `packtool status`: what expires when, in the state and as published, judged as a fresh client would judge the
/// tree; exits by the monitoring convention (0 ok, 1 warning, 2 critical or unreadable).
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "check the published tree as a new phone would, with days to each expiry; exit 0 ok, 1 warning, 2 critical"
    static let help = """
        usage: packtool status [--state DIR] [--tree DEST|URL|s3://BUCKET/PREFIX] [--deep]
                               [--warn-root-days 60] [--warn-manifest-days 30] [--warn-index-days 2] [--format text|json]

        For the root, the index, every pack's manifest and the revocation list: the version in the state folder and
        as published, when it expires and the days left — and whether a phone installing the app today would take
        the published tree, judged with the client's own admission code: the root chain from root 1, the index's
        signature, expiry and creation time (one created ahead of the clock is refused: clock-skew), the revocation
        list it binds (signed by the current grant key), each manifest (signature, expiry, the bytes the index names)
        and each archive's size. It is asked now, and again at the end of each kind's horizon: the root 60 days ahead
        (rotating it needs the offline root keys), manifests 30 days, the index and revocation list 2 days.
        --tree may be a folder, an s3:// location (with upload's store flags) or the http(s):// address clients use.
        Archives are held to the size the index signs; --deep reads each one and holds it to the SHA-256 too (a
        whole download of every pack: weekly, not in the daily check).

        Exit codes (the monitoring convention: Nagios, Icinga, cron alerts):
          0  all well: a new phone admits every signed document now, and would at each horizon's end, and
             each archive has its signed size (with --deep, its signed SHA-256)
          1  warning: something expires within its horizon, or the tree lags the state (a root, a release or a
             revocation list not yet published)
          2  critical: a new phone would refuse something now (expired, created in the future, signed by a retired
             key, damaged), the index is older than files the tree holds (put back, or a key used by someone
             else), or the tree or state could not be read

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder"),
        CommandOption("--tree", "DEST|URL|s3://BUCKET/PREFIX", "the published tree to read (a folder, s3:// or the clients' http(s):// address)", aliases: ["--cdn"]),
        CommandOption("--deep", nil, "also read every archive and check its SHA-256 against the index"),
    ] + HorizonFlags.options + [
        CommandOption("--warn-days", "N", "sets all three horizons at once (the older single flag)"),
        .format(),
        CommandOption.timeout("15"),
    ] + CommandOption.objectStore
    static let examples = [
        "packtool status --state demo-out/state --tree demo-out/cdn",
        "packtool status --tree https://cdn.example.org/royal-mile --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("status takes no positional arguments") }
        let json = try OutputFormat.json(a)
        let tree = try a.value("--tree").map { try PublishedTreeFlags.open($0, a, writable: false) }
        let state = a.value("--state").map { URL(fileURLWithPath: $0) }
        guard state != nil || tree != nil else { throw CommandLineError.usage("give --state, --tree, or both") }
        if let state, !FileSystem.isDirectory(state.path) { throw CommandLineError.io("\(ShownPath.of(state)): no such folder (--state names the publisher's state folder)") }
        let horizons = try HorizonFlags.horizons(a, legacy: ("--warn-days", ["root", "manifest", "index"]))
        let status: CatalogueStatus
        do { status = try CatalogueStatus.check(state: state, tree: tree, horizons: horizons, deep: a.flag("--deep")) } catch let e as PublishError {
            // Unreadable is as urgent as critical for an alarm: exit 2 either way.
            switch e {
            case .io(let m), .objectStore(let m): throw CommandLineError.io(m)
            default: throw CommandLineError.io(e.description)
            }
        }
        if json {
            // One object, as every command's --format json prints: the rows and the verdict the exit code gives.
            struct Report: Encodable { let documents: [CatalogueStatus.Row]; let status: String; let needsAttention: Bool }
            Output.out(String(decoding: try OutputFormat.encoder.encode(Report(documents: status.rows, status: status.severity.rawValue,
                                                                                needsAttention: status.needsAttention)), as: UTF8.self) + "\n")
        } else {
            func col(_ s: String, _ w: Int) -> String { s + String(repeating: " ", count: max(1, w - s.count)) }
            let names = status.rows.map { row in row.pack.map { "\(row.kind) \($0)" } ?? row.kind }
            let width = (names.map(\.count).max() ?? 0) + 2
            var text = col("what", width) + "state  published  expires               days left\n"
            for (row, what) in zip(status.rows, names) {
                text += col(what, width) + col(row.stateVersion.map(String.init) ?? "-", 7) + col(row.publishedVersion.map(String.init) ?? "-", 11)
                    + col(row.expires ?? "-", 22) + (row.daysLeft.map { String($0) } ?? "-") + "\n"
                if let problem = row.problem { text += "  \(row.severity == .critical ? "CRITICAL" : "warning"): \(Output.escapingControls(problem))\n" }
            }
            // By the tree's kind, not its location's spelling: a folder is shown relative, and may be named `https-mirror`.
            if tree is FetchedTree {
                text += "(archive sizes were not checked over HTTP; `packtool verify` reads them)\n"
            }
            switch status.severity {
            case .ok: text += "all well: a new phone installs every pack now and at each horizon's end"
                + (a.flag("--deep") || tree is FetchedTree ? "\n" : " (archives checked by size; --deep reads them)\n")
            case .warning: text += "warning: \(status.rows.filter { $0.severity == .warning }.count) to act on within its horizon\n"
            case .critical: text += "CRITICAL: \(status.rows.filter { $0.severity == .critical }.count) to act on now\n"
            }
            Output.out(text)
        }
        return Int32(status.severity == .ok ? 0 : status.severity == .warning ? 1 : 2)
    }
}

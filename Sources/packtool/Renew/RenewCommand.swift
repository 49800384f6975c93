#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackPublish

/// `packtool renew`: re-signs the published index with a new version and expiry, nothing else changed (TUF's
/// timestamp role), after publishing the roots and revocation list it will name. Made for cron and scheduled CI.
enum RenewCommand: Command {
    static let name = "renew"
    static let summary = "re-sign the published index before it expires (run it from cron); publishes new roots and revocations"
    static let help = """
        usage: packtool renew --index-key INDEX.pem... --publish DEST|s3://BUCKET/PREFIX [--state DIR]
                              [--index-days 7] [--force] [--reset-memory] [--clock-checked] [--wait 300] [--format text|json] [--quiet]
                              [--warn-root-days 60] [--warn-manifest-days 30] [--passphrase-file FILE]
                              [--manifest-key MANIFEST.pem... [--manifest-days 365]]
                              [--endpoint URL] [--region R] [--profile NAME] [--path-style | --virtual-hosted] [--timeout S]

        Reads DEST/index.json, checks it is this catalogue's (signed by the index role of a root in DEST/root/ or
        DIR/root/), and replaces it with the same index at the next version, expiring --index-days from now (never
        after the root). Before the index, it publishes every root version DEST lacks and, with --state, the state's
        newest revocation list (`packtool grant revoke` writes it), which the new index binds. No archive is read.
        The index is replaced by compare-and-swap (a lock and compare on a folder, If-Match on S3/R2/SeaweedFS): a
        release published meanwhile is kept and built upon, never lost. Rerunning within the hour changes nothing
        unless something new is to be published (or --force).
        An index is never signed below the tree's floor: no pack at a lower version than a manifest in the tree signed
        by this catalogue, no revocation list older than one in the tree or the state, no root older than the tree's —
        so an old index put back by someone who can write to the tree (to bring a withdrawn release back, or to unbind
        a revocation list) is refused, with or without --state, on any machine. This machine also remembers the newest
        index it saw of each tree ($XDG_STATE_HOME/packtool/renew, else ~/.local/state/packtool/renew); a tree
        replaced on purpose: --reset-memory. With --state, a put-back index is rebuilt from the ledger instead. Versioned
        files newer than the index lists may also be a release being published right now: renew waits for its index up
        to --wait seconds (300), then refuses.
        An index created ahead of this machine's clock (signed where the clock ran ahead: clients refuse it) is signed
        again at this machine's time. A clock behind the tree's releases is refused, and so is one set back since
        this machine signed or saw the index ahead of it (exit 2): check it, then --clock-checked signs again.
        Manifests expiring within --warn-manifest-days (30) are reported: give --manifest-key (with --state) and each
        is re-released first as version N+1 with the same content and a fresh expiry, from the ledger's store — as is
        every manifest clients refuse because the manifest role's keys changed (no pack folder needed; manifests are
        never re-signed in place). A root expiring within --warn-root-days (60) is reported: its rotation needs the
        offline root keys.

        Example (daily, from cron; the key is the only secret needed, and cron mails what it prints):
          packtool renew --index-key /etc/packtool/index.pem --passphrase-file /etc/packtool/index.pass --publish s3://packs/royal-mile --quiet

        Exit codes (the monitoring convention):
          0  renewed (or fresh already), nothing to warn about
          1  renewed (or fresh), with warnings: a manifest or the root within its horizon, an index that had expired or
             was put back, a release in the ledger the tree lacks
          2  critical: nothing was signed (not this catalogue's index, the wrong key, an expired root, an index below
             the tree's floor, usage or I/O errors; rerun when fixed), or a new phone still refuses part of the tree

        """
    static let options: [CommandOption] = [
        CommandOption("--index-key", "INDEX.pem", "an index role private key; repeatable"),
        CommandOption("--publish", "DEST|s3://BUCKET/PREFIX", "the published tree to renew", aliases: ["--tree"]),
        CommandOption("--state", "DIR", "the publisher's state folder (optional: its ledger and revocation lists)"),
        CommandOption("--index-days", "N", "the new index expires N days from now (default 7; never after the root)"),
        CommandOption("--warn-days", "N", "the older name of --warn-manifest-days"),
        .flag("--force", "renew even when the index was renewed within the hour"),
        .flag("--reset-memory", "forget the newest index this machine saw of the tree"),
        .flag("--clock-checked", "this machine's clock was checked: sign again an index it signed or saw ahead of its clock (give it once, by hand; never in a scheduled job)"),
        CommandOption("--wait", "SECONDS", "how long to wait for a release being published (default 300; 0: do not wait)"),
        .format(),
        CommandOption("--manifest-key", "MANIFEST.pem", "re-release expiring or refused manifests as N+1 (with --state); repeatable"),
        CommandOption("--manifest-days", "N", "re-released manifests expire N days after (default 365)"),
    ] + HorizonFlags.options.filter { $0.name != "--warn-index-days" } + [PassphraseFlags.option] + CommandOption.objectStore + CommandOption.uploadSizes
    static let examples = [
        "packtool renew --index-key keys-example/index.pem --publish demo-out/cdn --state demo-out/state",
        "packtool renew --index-key /etc/packtool/index.pem --passphrase-file /etc/packtool/index.pass --publish s3://packs/royal-mile --endpoint https://ACCOUNT.r2.cloudflarestorage.com --quiet --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("renew takes no positional arguments (give the tree with --publish)") }
        let keyPaths = a.values("--index-key")
        guard !keyPaths.isEmpty else { throw CommandLineError.usage("give the index key with --index-key") }
        let json = try OutputFormat.json(a)
        let destination = try a.required("--publish")
        // A tree to renew has an index already: a mistyped folder is named as missing, not as a tree without a root.
        if !destination.contains("://"), !FileSystem.isDirectory(destination) {
            throw CommandLineError.io("\(destination): \(FileSystem.exists(destination) ? "not a folder" : "no such folder"); --publish names the published tree to renew")
        }
        let tree = try PublishedTreeFlags.open(destination, a, writable: true)
        var options = Renewal.Options(tree: tree, state: a.value("--state").map { URL(fileURLWithPath: $0) },
                                      indexKeys: try SigningKeys.privateKeys(keyPaths, role: RootDocument.Role.index, a))
        options.indexLifetime = try a.days("--index-days", default: 7)
        options.horizons = try HorizonFlags.horizons(a, legacy: ("--warn-days", ["manifest"]))
        options.force = a.flag("--force")
        options.clockChecked = a.flag("--clock-checked")
        options.waiting = { Output.note("\($0)\n") }
        if let text = a.value("--wait") {
            guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= 86_400 else {
                throw CommandLineError.usage("--wait must be a number of seconds from 0 (do not wait) to 86400, got \(text)")
            }
            options.releaseWait = seconds
        }
        if a.flag("--reset-memory"), let folder = options.memory { RenewMemory.forget(in: folder, location: tree.memoryKey) }
        var rereleased: [String] = []
        let report: Renewal.Report
        do {
            if !a.values("--manifest-key").isEmpty {
                // Every pack first, without an index; the renewal below lists them all at once (beside a root the
                // state holds and the tree lacks, which no pack may be left behind by).
                let due = try Renewal(options: options).manifestsToRerelease()
                rereleased = try rerelease(due, a, publishIndex: false, above: try namesTaken(by: due.map(\.pack), in: tree, state: options.state))
                options.rereleased = Set(due.map(\.pack))
            }
            report = try Renewal(options: options).run()
        } catch let e as PublishError {
            // Nothing signed is as urgent as anything clients refuse: exit 2 either way (the monitoring convention).
            switch e {
            case .io(let m), .objectStore(let m): throw CommandLineError.io(m + "; the index was not changed")
            default: throw CommandLineError.io(e.description + "; the index was not changed")
            }
        }
        var warnings = report.warnings
        for m in report.expiringManifests {
            warnings.append("\(m.pack) version \(m.version)'s manifest expires at \(m.expires); re-release it before then: packtool renew --state DIR --manifest-key MANIFEST.pem --index-key INDEX.pem --publish \(tree.location) (or packtool sign PACKDIR … --version \(m.version + 1))")
        }
        let exit: Int32 = !report.critical.isEmpty ? 2 : warnings.isEmpty ? 0 : 1
        if json {
            struct Out: Encodable {
                var rereleased: [String]
                var tree: String, renewed: Bool, indexVersion: Int, expires: String, attempts: Int
                var rootsPublished: [Int], revocationsPublished: Int?, warnings: [String], critical: [String]
                var expiringManifests: [[String: String]]
                var status: String
            }
            let out = Out(rereleased: rereleased, tree: tree.location, renewed: report.renewed, indexVersion: report.index.version, expires: report.index.expires, attempts: report.attempts,
                          rootsPublished: report.rootsPublished, revocationsPublished: report.revocationsPublished, warnings: report.warnings, critical: report.critical,
                          expiringManifests: report.expiringManifests.map { ["pack": $0.pack, "version": String($0.version), "expires": $0.expires] },
                          status: exit == 0 ? "ok" : exit == 1 ? "warning" : "critical")
            Output.out(String(decoding: try OutputFormat.encoder.encode(out), as: UTF8.self) + "\n")
            return exit
        }
        var text = rereleased.map { "re-released \($0)\n" }.joined()
        for version in report.rootsPublished { text += "published \(tree.describe(PublishLayout.root(version: version)))\n" }
        if let v = report.revocationsPublished { text += "published \(tree.describe(PublishLayout.revocations(version: v)))\n" }
        if report.renewed {
            text += "renewed \(tree.describe(PublishLayout.index)): version \(report.index.version), expires \(report.index.expires)"
                + (report.attempts > 1 ? " (built on another writer's index; \(report.attempts) reads)" : "") + "\n"
        } else {
            text += "\(tree.describe(PublishLayout.index)) version \(report.index.version) is fresh (expires \(report.index.expires)); nothing to do (--force re-signs anyway)\n"
        }
        // --quiet keeps only what needs a person (warnings, critical lines), so cron mails exactly that.
        if !Output.quiet { Output.out(text) }
        for warning in warnings { Output.err("warning: \(warning)\n") }
        for problem in report.critical { Output.err("CRITICAL: \(problem)\n") }
        return exit
    }
}

extension RenewCommand {
    /// Re-releases each expiring manifest's pack as the next version from the state's ledger (`Publisher.rerelease`),
    /// into the folder, or for a bucket into the state's upload folder and then uploaded as `sign --publish` does.
    /// The highest version folder the tree holds for each of `packs`, whoever wrote it: a re-release is numbered
    /// above it, so names a thief took with a retired manifest key never block it.
    static func namesTaken(by packs: [String], in tree: PublishedTree, state: URL?) throws -> [String: Int] {
        let roots = try CatalogueRoots.load(state: state, tree: tree)
        let listed = try? IndexCommit(tree: tree, roots: roots, keys: []).current()?.trusted
        try TreeFloor.requireNoForeignNames(tree: tree, roots: roots, listed: listed)
        var above: [String: Int] = [:]
        for pack in packs {
            above[pack] = try TreeFloor.highestName(in: tree, folder: "packs/\(pack)", suffix: "", probeAbove: listed?.packs[pack]?.version ?? 0) {
                PublishLayout.manifest(pack: pack, version: $0)
            }
        }
        return above
    }

    /// Re-releases each pack from the ledger. `publishIndex` false (a manifest-key rotation): the releases go into the
    /// tree and the ledger without an index, for one renewal to list them all beside the new root; `above` numbers a
    /// pack's re-release above names already taken in the tree.
    static func rerelease(_ expiring: [(pack: String, version: Int, expires: String)], _ a: Arguments,
                          publishIndex: Bool = true, above: [String: Int] = [:]) throws -> [String] {
        guard !expiring.isEmpty else { return [] }
        guard let state = a.value("--state") else {
            throw CommandLineError.usage("--manifest-key re-releases from the state's ledger: give --state DIR")
        }
        let destination = try a.required("--publish")
        let store = try ObjectStoreFlags.destination(destination, state: state, a)
        var options = Publisher.Options(pack: URL(fileURLWithPath: state), state: URL(fileURLWithPath: state), output: store?.2 ?? URL(fileURLWithPath: destination),
                                        manifestKeys: try SigningKeys.privateKeys(a.values("--manifest-key"), role: RootDocument.Role.manifest, a),
                                        indexKeys: try SigningKeys.privateKeys(a.values("--index-key"), role: RootDocument.Role.index, a))
        options.manifestLifetime = try a.days("--manifest-days", default: 365)
        options.indexLifetime = try a.days("--index-days", default: 7)
        options.publishIndex = publishIndex
        options.waiting = { Output.note("\($0)\n") }
        var done: [String] = []
        for manifest in expiring {
            let result = try Publisher(options: options).rerelease(pack: manifest.pack, above: above[manifest.pack] ?? 0)
            if let (location, settings, folder) = store {
                guard try UploadCommand.upload(tree: folder, to: location, settings: settings, arguments: a, quiet: true, releasing: manifest.pack, index: publishIndex) == 0 else {
                    throw CommandLineError.io("\(location): the re-release of \(manifest.pack) did not upload; rerun renew")
                }
            }
            done.append("\(manifest.pack) version \(manifest.version)\(manifest.expires.isEmpty ? "" : " (expires \(manifest.expires))") as version \(result.plan.manifest.version), expires \(result.plan.manifest.expires)")
        }
        return done
    }
}

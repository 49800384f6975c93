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
                              [--index-days 7] [--warn-days 30] [--force] [--reset-memory] [--wait 300] [--format text|json]
                              [--manifest-key MANIFEST.pem... [--manifest-days 365]]
                              [--endpoint URL] [--region R] [--profile NAME] [--path-style | --virtual-hosted] [--timeout S]

        Reads DEST/index.json, checks it is this catalogue's (signed by the index role of a root in DEST/root/ or
        DIR/root/), and replaces it with the same index at the next version, expiring --index-days from now. Before
        the index, it publishes every root version DEST lacks and, with --state, the state's newest revocation list
        (`packtool grant revoke` writes it), which the new index binds. No archive is read.
        The index is replaced by compare-and-swap (a lock and compare on a folder, If-Match on S3/R2/SeaweedFS): a
        release published meanwhile is kept and built upon, never lost. Rerunning within the hour changes nothing
        unless something new is to be published (or --force).
        This machine remembers the newest index it saw of each tree ($XDG_STATE_HOME/packtool/renew, else
        ~/.local/state/packtool/renew) and refuses to sign over an older one — an old index put back by someone who
        can write to the tree would otherwise bring a withdrawn release back or unbind a revocation list. With
        --state, the ledger decides instead: releases older than the state's are listed again from it. A tree
        replaced on purpose (a new bucket at the same address): --reset-memory. A clock behind the index's creation
        time is refused. Without --state, versioned names are the tree's own memory: a manifest of a later pack
        version (or a later revocation list) than the index lists means a release is being published — renew waits
        for it to reach the index, up to --wait seconds (300) — or an older index was put back: then it refuses.
        Manifests expiring within --warn-days are reported: re-release them with `packtool sign PACK --version N+1`,
        or give --manifest-key (with --state): each is then re-released first as version N+1 with the same content
        and a fresh expiry, from the ledger's store (no pack folder needed; manifests are never re-signed in place).

        Example (weekly, from cron; the key is the only secret needed):
          packtool renew --index-key /etc/packtool/index.pem --publish s3://packs/royal-mile --endpoint https://ACCOUNT.r2.cloudflarestorage.com

        Exit codes: 0 renewed (or fresh already), 1 refused (not this catalogue's index, wrong key, expired root),
        2 usage or I/O error (nothing changed; rerun).

        """
    static let options: [CommandOption] = [
        CommandOption("--index-key", "INDEX.pem", "an index role private key; repeatable"),
        CommandOption("--publish", "DEST|s3://BUCKET/PREFIX", "the published tree to renew", aliases: ["--tree"]),
        CommandOption("--state", "DIR", "the publisher's state folder (optional: its ledger and revocation lists)"),
        CommandOption("--index-days", "N", "the new index expires N days from now (default 7)"),
        CommandOption("--warn-days", "N", "report manifests expiring within N days (default 30)"),
        .flag("--force", "renew even when the index was renewed within the hour"),
        .flag("--reset-memory", "forget the newest index this machine saw of the tree"),
        CommandOption("--wait", "SECONDS", "how long to wait for a release being published (default 300)"),
        .format(),
        CommandOption("--manifest-key", "MANIFEST.pem", "re-release expiring manifests as N+1 (with --state); repeatable"),
        CommandOption("--manifest-days", "N", "re-released manifests expire N days after (default 365)"),
    ] + CommandOption.objectStore + CommandOption.uploadSizes
    static let examples = [
        "packtool renew --index-key keys-example/index.pem --publish demo-out/cdn --state demo-out/state",
        "packtool renew --index-key /etc/packtool/index.pem --publish s3://packs/royal-mile --endpoint https://ACCOUNT.r2.cloudflarestorage.com --quiet --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.isEmpty else { throw CommandLineError.usage("renew takes no positional arguments (give the tree with --publish)") }
        let keyPaths = a.values("--index-key")
        guard !keyPaths.isEmpty else { throw CommandLineError.usage("give the index key with --index-key") }
        let json = try OutputFormat.json(a)
        let tree = try PublishedTreeFlags.open(try a.required("--publish"), a, writable: true)
        var options = Renewal.Options(tree: tree, state: a.value("--state").map { URL(fileURLWithPath: $0) },
                                      indexKeys: try SigningKeys.privateKeys(keyPaths, role: RootDocument.Role.index))
        options.indexLifetime = try a.number("--index-days", default: 7) * 86_400
        options.manifestWarning = try a.number("--warn-days", default: 30) * 86_400
        options.force = a.flag("--force")
        if a.value("--wait") != nil { options.releaseWait = try a.number("--wait", default: 300) }
        if a.flag("--reset-memory"), let folder = options.memory { RenewMemory.forget(in: folder, location: tree.location) }
        var rereleased: [String] = []
        let report: Renewal.Report
        do {
            if !a.values("--manifest-key").isEmpty {
                rereleased = try rerelease(Renewal(options: options).expiringManifests(), a)
            }
            report = try Renewal(options: options).run()
        } catch let e as PublishError {
            switch e {
            case .io(let m), .objectStore(let m): throw CommandLineError.io(m + "; the index was not changed")
            default: throw CommandLineError.failure(e.description + "; the index was not changed")
            }
        }
        if json {
            struct Out: Encodable {
                var rereleased: [String]
                var tree: String, renewed: Bool, indexVersion: Int, expires: String, attempts: Int
                var rootsPublished: [Int], revocationsPublished: Int?, warnings: [String]
                var expiringManifests: [[String: String]]
            }
            let out = Out(rereleased: rereleased, tree: tree.location, renewed: report.renewed, indexVersion: report.index.version, expires: report.index.expires, attempts: report.attempts,
                          rootsPublished: report.rootsPublished, revocationsPublished: report.revocationsPublished, warnings: report.warnings,
                          expiringManifests: report.expiringManifests.map { ["pack": $0.pack, "version": String($0.version), "expires": $0.expires] })
            Output.out(String(decoding: try OutputFormat.encoder.encode(out), as: UTF8.self) + "\n")
            return 0
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
        Output.out(text)
        for warning in report.warnings { Output.err("warning: \(warning)\n") }
        for m in report.expiringManifests {
            Output.err("warning: \(m.pack) version \(m.version)'s manifest expires at \(m.expires); re-release it before then: packtool sign PACKDIR --state DIR --manifest-key MANIFEST.pem --index-key INDEX.pem --version \(m.version + 1) --publish \(tree.location)\n")
        }
        return 0
    }
}

extension RenewCommand {
    /// Re-releases each expiring manifest's pack as the next version from the state's ledger (`Publisher.rerelease`),
    /// into the folder, or for a bucket into the state's upload folder and then uploaded as `sign --publish` does.
    static func rerelease(_ expiring: [(pack: String, version: Int, expires: String)], _ a: Arguments) throws -> [String] {
        guard !expiring.isEmpty else { return [] }
        guard let state = a.value("--state") else {
            throw CommandLineError.usage("--manifest-key re-releases from the state's ledger: give --state DIR")
        }
        let destination = try a.required("--publish")
        let store = try ObjectStoreFlags.destination(destination, state: state, a)
        var options = Publisher.Options(pack: URL(fileURLWithPath: state), state: URL(fileURLWithPath: state), output: store?.2 ?? URL(fileURLWithPath: destination),
                                        manifestKeys: try SigningKeys.privateKeys(a.values("--manifest-key"), role: RootDocument.Role.manifest),
                                        indexKeys: try SigningKeys.privateKeys(a.values("--index-key"), role: RootDocument.Role.index))
        options.manifestLifetime = try a.number("--manifest-days", default: 365) * 86_400
        options.indexLifetime = try a.number("--index-days", default: 7) * 86_400
        var done: [String] = []
        for manifest in expiring {
            let result = try Publisher(options: options).rerelease(pack: manifest.pack)
            if let (location, settings, folder) = store {
                guard try UploadCommand.upload(tree: folder, to: location, settings: settings, arguments: a, quiet: true, releasing: manifest.pack) == 0 else {
                    throw CommandLineError.io("\(location): the re-release of \(manifest.pack) did not upload; rerun renew")
                }
            }
            done.append("\(manifest.pack) version \(manifest.version) (expires \(manifest.expires)) as version \(result.plan.manifest.version), expires \(result.plan.manifest.expires)")
        }
        return done
    }
}

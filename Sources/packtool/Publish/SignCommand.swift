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
import PackMedia
import PackCrypto
import PackModel
import PackLint
import PackPublish

/// `packtool sign`: lint, version, sign and publish in one step (and `packtool build`: the same plan, nothing written).
enum SignCommand: Command {
    static let name = "sign"
    static let summary = "lint, version, sign and publish a pack into a CDN tree"
    static let help = """
        usage: packtool sign PACKDIR --state DIR --manifest-key MANIFEST.pem... --index-key INDEX.pem... --publish OUT|s3://BUCKET/PREFIX
                             [--allow-warnings] [--manifest-days 365] [--index-days 7] [--version N]

        Lints PACKDIR (errors always stop the publish; warnings do unless --allow-warnings), takes versions from the
        ledger in DIR (pack version +1; a scene's version changes only when its digest does), signs the manifest and
        writes OUT/packs/<id>/<version>/manifest.json and <id>-<version>.tar (manifest first, then pack.json, the free
        stops and the rest of the route in order; mtime from SOURCE_DATE_EPOCH, owner 0:0, mode 0644, uncompressed),
        copies DIR/root/*.root.json to OUT/root/,
        and finally replaces OUT/index.json (signed by the index key) by compare-and-swap: the index OUT holds then
        (renewed meanwhile by `packtool renew`, or listing other packs) is built upon, never lost, and one this
        catalogue did not sign is refused. Nothing else in OUT changes; any failure leaves OUT and DIR as they were.
        A pack whose content has not changed is not published again (to keep the index from expiring, run renew).
        --version N publishes as version N: refused when N is below the last version, or equal to it with different
        content; above it, the same content is published again as N (to renew a manifest before it expires).
        With --publish s3://BUCKET/PREFIX the tree is published into DIR/uploads/BUCKET/PREFIX first, then uploaded
        as `packtool upload` does (--endpoint, --region, --profile, --path-style, --virtual-hosted as there); a failed
        upload is resumed by running `packtool upload` on that folder, or sign again.
        Each file's SHA-256 is remembered in the user's cache (digests/, beside lint's voices) and a file is read again
        unless it provably has not changed: same inode, size and times, last changed 2 s or more before it was hashed,
        on ext4, XFS or Btrfs, since the last boot and mount (docs/formats.md, "Tree digest"). Elsewhere, and on a
        first sign, every file is hashed.
        Exit codes: 0 published (or nothing to do), 1 refused (lint, keys, versions), 2 usage or I/O error.

        """
    static let options: [CommandOption] = [
        CommandOption("--state", "DIR", "the publisher's state folder (ledger, roots, kept archives)"),
        CommandOption("--manifest-key", "MANIFEST.pem", "a manifest role private key; repeatable", aliases: ["--key"]),
        CommandOption("--index-key", "INDEX.pem", "an index role private key; repeatable"),
        PassphraseFlags.option,
        CommandOption("--publish", "OUT|s3://BUCKET/PREFIX", "the published tree to write"),
        .flag("--allow-warnings", "publish even when lint finds warnings (errors always stop)"),
        CommandOption("--manifest-days", "N", "the manifest expires N days after it is made (default 365)"),
        CommandOption("--index-days", "N", "the index expires N days from now (default 7)"),
        CommandOption("--version", "N", "publish as version N (see above)"),
        .format("text, or one JSON object: pack, version, what was published (or that nothing changed)"),
    ] + CommandOption.objectStore + CommandOption.uploadSizes
    static let examples = [
        "SOURCE_DATE_EPOCH=$(date +%s) packtool sign scenes/royal-mile --state demo-out/state --manifest-key keys-example/manifest.pem --index-key keys-example/index.pem --publish demo-out/cdn",
        "packtool sign scenes/royal-mile --state pub-state --manifest-key manifest.pem --index-key index.pem --publish s3://packs/royal-mile --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one PACKDIR") }
        let pack = URL(fileURLWithPath: a.positionals[0])
        guard FileManager.default.fileExists(atPath: pack.appendingPathComponent("pack.json").path) else {
            throw CommandLineError.io("\(a.positionals[0]): no pack.json (give a pack folder)")
        }
        let manifestPaths = a.values("--manifest-key"), indexPaths = a.values("--index-key")
        guard !manifestPaths.isEmpty else { throw CommandLineError.usage("give the manifest key with --manifest-key") }
        guard !indexPaths.isEmpty else { throw CommandLineError.usage("give the index key with --index-key") }
        let store = try ObjectStoreFlags.destination(try a.required("--publish"), state: try a.required("--state"), a)
        if let (location, _, _) = store { try requireCatalogueBucket(location.description, a) }
        let output = try store?.2 ?? URL(fileURLWithPath: a.required("--publish"))
        var options = Publisher.Options(pack: pack, state: URL(fileURLWithPath: try a.required("--state")), output: output,
                                        manifestKeys: try SigningKeys.privateKeys(manifestPaths, role: RootDocument.Role.manifest, a),
                                        indexKeys: try SigningKeys.privateKeys(indexPaths, role: RootDocument.Role.index, a))
        options.allowWarnings = a.flag("--allow-warnings")
        options.listener = StoryVoice.standard()
        options.digestMemory = DigestMemory.standard()
        if let v = a.value("--version") {
            guard let n = Int(v), n >= 1 else { throw CommandLineError.usage("--version must be a whole number ≥ 1") }
            options.version = n
        }
        options.manifestLifetime = try a.days("--manifest-days", default: 365)
        options.indexLifetime = try a.days("--index-days", default: 7)
        options.waiting = { Output.note("\($0)\n") }
        let json = try OutputFormat.json(a)
        let progress = ProgressLine(label: "writing archive")
        options.progress = progress.map { p in { p.update($0, of: $1) } }
        do {
            let result: Publisher.Result
            switch try Publisher(options: options).sign() {
            case .unchanged(let plan):
                return try reportUnchanged(plan, output: output, store: store, json: json, indexPath: indexPaths[0], a)
            case .published(let published):
                result = published
            }
            progress?.finish()
            let plan = result.plan
            // Warnings that do not stop a publish (a reviewer key from keys-example/) are still said.
            for d in plan.warnings where Linter.advisoryCodes.contains(d.code) {
                Output.err("warning: \(Output.escapingControls(d.message)) [\(d.code)]\(d.hint.map { "; \($0)" } ?? "")\n")
            }
            let m = plan.manifest
            let facts = try reportPublished(result, output: output, json: json, uploading: store != nil)
            defer { rememberIndex(of: try? PublishedTreeFlags.open(a.value("--publish") ?? "", a, writable: true), state: a.value("--state")) }
            if let (location, settings, _) = store {
                do { return try UploadCommand.upload(tree: output, to: location, settings: settings, arguments: a, quiet: false, releasing: m.pack,
                                                     json: json ? facts : nil) }
                catch let e as CommandLineError {
                    // The release is signed and recorded; only the upload is left to do.
                    let next = "\(m.pack) version \(m.version) is recorded in \(a.value("--state") ?? "the state") and written to \(ShownPath.of(output)); "
                        + "finish with `packtool upload \(ShownPath.of(output)) \(location)` (or sign again)"
                    switch e {
                    case .failure(let message): throw CommandLineError.failure(message + "; " + next)
                    default: throw CommandLineError.io(e.message + "; " + next)
                    }
                }
            }
            return 0
        } catch let e as PublishError {
            progress?.finish()
            if case .lint(let diagnostics) = e {
                Output.err(TextRenderer(color: false).render(diagnostics.filter { $0.severity == .error || !options.allowWarnings }))
            }
            if case .io(let message) = e { throw CommandLineError.io(message + "; nothing was published") }
            throw CommandLineError.failure(e.description)
        } catch let e as CommandLineError {
            progress?.finish()
            throw e
        } catch {
            progress?.finish()
            throw CommandLineError.io("\(error); nothing was published")
        }
    }

    /// The bucket must hold this catalogue's index (or none) before anything is signed, recorded or sent: a release
    /// is never written into another catalogue's bucket.
    private static func requireCatalogueBucket(_ location: String, _ a: Arguments) throws {
        let bucket = try PublishedTreeFlags.open(location, a, writable: true)
        do { _ = try IndexCommit(tree: bucket, roots: try CatalogueRoots.load(state: URL(fileURLWithPath: try a.required("--state")), tree: bucket), keys: []).current() }
        catch let e as PublishError {
            switch e {
            case .trust(let m): throw CommandLineError.failure(m + "; nothing was published")
            default: throw CommandLineError.io("\(e); nothing was published")
            }
        }
    }

    /// `sign` with nothing new to publish: says so, points to `renew` (the usual reason to sign again is an index
    /// about to expire), and finishes an upload the bucket may still lack.
    private static func reportUnchanged(_ plan: Publisher.Plan, output: URL, store: (S3Location, ObjectStoreSettings, URL)?, json: Bool,
                                        indexPath: String, _ a: Arguments) throws -> Int32 {
        let last = plan.previousVersion ?? 0
        let unchanged: [String: JSONValue] = ["pack": .string(plan.manifest.pack), "published": false, "version": .int(last), "tree": .string(ShownPath.of(output))]
        if json, store == nil { try JSONValue.object(unchanged).print() }
        if !json { Output.out("\(plan.manifest.pack): nothing changed since version \(last); nothing published\n") }
        // The usual reason to run sign with nothing new is an index about to expire: that is renew's job.
        Output.note("note: to keep the published index from expiring, renew it (no new version needed): "
                   + "packtool renew --index-key \(indexPath) --publish \(a.value("--publish") ?? "DEST") --state \(a.value("--state") ?? "DIR")\n")
        // The state remembers releases, not where their trees went: a new --publish folder stays empty.
        let published = output.appendingPathComponent(PublishLayout.manifest(pack: plan.manifest.pack, version: last))
        if !FileManager.default.fileExists(atPath: published.path) {
            Output.note("""
                note: \(ShownPath.of(output)) holds no version \(last) of \(plan.manifest.pack); it was published into another \
                tree. Publish into that tree, or write the whole tree into a new folder with `packtool export`; a \
                new version is made when the pack changes, or with --version \(last + 1).

                """)
        } else if let (location, settings, _) = store {
            // Unchanged here, but the bucket may still lack it (an upload that failed): finish it.
            return try UploadCommand.upload(tree: output, to: location, settings: settings, arguments: a, quiet: true, json: json ? unchanged : nil)
        } else if json, store != nil {
            try JSONValue.object(unchanged).print()
        }
        return 0
    }

    /// What a release published, as the JSON object (returned, for the upload's report to extend) and, without
    /// `--format json`, as text; printed here unless an upload follows and prints the JSON itself.
    private static func reportPublished(_ result: Publisher.Result, output: URL, json: Bool, uploading: Bool) throws -> [String: JSONValue] {
        let plan = result.plan, m = plan.manifest
        let facts: [String: JSONValue] = [
            "pack": .string(m.pack), "published": true, "version": .int(Int(m.version)),
            "previousVersion": plan.previousVersion.map { .int(Int($0)) } ?? .null, "scenes": .int(m.scenes.count),
            "changedScenes": .strings(plan.changedScenes.sorted()), "archive": .string(ShownPath.of(result.archive)), "archiveSize": .int(Int(result.archiveSize)),
            "archiveSHA256": .string(result.archiveSHA256), "manifest": .string(ShownPath.of(result.manifest)), "tree": .string(ShownPath.of(output)),
            "indexVersion": .int(result.indexVersion), "deltas": .int(result.deltas.count),
        ]
        if json, !uploading { try JSONValue.object(facts).print() }
        if !json { Output.out("""
            published \(m.pack) version \(m.version)\(plan.previousVersion.map { " (previous \($0))" } ?? "")
              scenes: \(m.scenes.count), changed: \(plan.changedScenes.isEmpty ? "none" : plan.changedScenes.joined(separator: ", "))
              archive: \(ShownPath.of(result.archive)) (\(result.archiveSize) bytes, sha256 \(result.archiveSHA256))
              manifest: \(ShownPath.of(result.manifest))
              index: \(ShownPath.of(output.appendingPathComponent(PublishLayout.index))) version \(result.indexVersion)
              deltas: \(result.deltas.count) written in \(NumberText.fixed(result.deltaSeconds * 1000, 1)) ms
              signing took \(NumberText.fixed(result.signingSeconds * 1000, 2)) ms

            """) }
        return facts
    }
}

extension SignCommand {
    /// Tells this machine's renew memory (`RenewMemory`) about the index a release just published, so a renew here
    /// later refuses an older one put back. Best effort: a tree that cannot be read now is simply not remembered.
    static func rememberIndex(of tree: PublishedTree?, state: String?) {
        guard let tree, let folder = RenewMemory.folder(environment: ProcessInfo.processInfo.environment),
              let roots = try? CatalogueRoots.load(state: state.map { URL(fileURLWithPath: $0) }, tree: tree),
              let current = (try? IndexCommit(tree: tree, roots: roots, keys: []).current()).flatMap({ $0 }) else { return }
        let seen = RenewMemory.load(from: folder, location: tree.memoryKey)
        guard (seen?.version ?? 0) <= current.document.version else { return }
        _ = RenewMemory(location: tree.memoryKey, index: current.document).save(to: folder)
    }
}


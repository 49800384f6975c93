#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackAuthoring
import PackModel
import PackPublish

/// `packtool upload TREE s3://BUCKET/PREFIX`: feeds a published tree to S3, R2 or any S3-compatible store in the
/// order clients need (see `TreeUploader`).
enum UploadCommand: Command {
    static let name = "upload"
    static let summary = "upload a published tree to S3, R2 or any S3-compatible store, index.json last"
    static let help = """
        usage: packtool upload TREE s3://BUCKET[/PREFIX] [--endpoint URL] [--region REGION] [--profile NAME]
                               [--path-style | --virtual-hosted] [--multipart-threshold SIZE]
                               [--part-size SIZE] [--timeout SECONDS] [--dry-run] [--quiet]

        Uploads the tree `packtool sign --publish` wrote: every versioned object first (roots, manifests,
        archives, deltas), each checked after upload (the store's SHA-256 and size, or a read-back), then
        index.json, so no client ever sees an index naming an object that is not there yet. A rerun uploads
        only what is missing. The bucket's index.json is checked first: one this catalogue did not sign stops the
        upload before anything is sent. index.json is then written by compare-and-swap (If-Match on the ETag read,
        If-None-Match: * when there is none), and only over an index the tree's lists everything of: a bucket
        index renewed or published meanwhile is refused here (sign, export and renew, which hold the index key,
        merge onto it instead). A versioned object already in the bucket with other bytes is refused, never
        overwritten. Versioned objects get `Cache-Control: public, max-age=31536000, immutable`, index.json
        `public, max-age=60`.

        An interrupted multipart upload resumes on the next run from the parts already in the store, and stale
        uploads of this tree's versioned names are aborted. A response must arrive whole within --timeout plus the
        time its body takes at 1 MB/s. --quiet prints only the summary.

        --dry-run reads the store as upload does (the bucket's index, a HEAD per object, the roots) and prints what
        upload would do with each object, in its order: put (with its size, and its parts from the multipart
        threshold up), replace (index.json over the bucket's), unchanged (already there with these bytes), or
        refuse (where upload would stop, having sent the objects above). It sends nothing: no PUT, no multipart
        upload, no abort of a stale one, no DELETE. A refusal exits as upload would, naming the cause.

        Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, or a profile in ~/.aws.
        Exit codes: 0 uploaded (or nothing to do; with --dry-run: upload would finish), 1 refused (a versioned object
        in the bucket differs, the bucket's index is another catalogue's or newer than the tree's), 2 usage,
        credentials, network or store errors (rerun to resume).

        """
    static let options: [CommandOption] = CommandOption.objectStore + CommandOption.uploadSizes + [
        .flag("--dry-run", "read the store and print what upload would put, replace or leave unchanged, object by object;\nsend nothing"),
        .format("text, or one JSON object: bucket, prefix, objects uploaded and already there, bytes sent\n(with --dry-run: each object's action, the counts, the refusal if any)"),
    ]
    static let examples = [
        "packtool upload demo-out/cdn s3://packs/royal-mile --endpoint https://ACCOUNT.r2.cloudflarestorage.com --region auto",
        "packtool upload demo-out/cdn s3://packs/royal-mile --quiet --format json",
        "packtool upload demo-out/cdn s3://packs/royal-mile --dry-run",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 2 else { throw CommandLineError.usage("expected TREE and s3://BUCKET/PREFIX") }
        let tree = URL(fileURLWithPath: a.positionals[0])
        guard FileSystem.isDirectory(tree.path) else { throw CommandLineError.usage("\(ShownPath.of(tree)): no such folder (the tree `packtool sign --publish` wrote)") }
        let location: S3Location
        let settings: ObjectStoreSettings
        do { location = try S3Location(a.positionals[1]) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
        do { settings = try ObjectStoreFlags.settings(a) } catch let e as PublishError { throw CommandLineError.io("\(e)") }
        let json = try OutputFormat.json(a)
        if a.flag("--dry-run") { return try dryRun(tree: tree, to: location, settings: settings, arguments: a, quiet: a.flag("--quiet"), json: json) }
        return try upload(tree: tree, to: location, settings: settings, arguments: a, quiet: a.flag("--quiet"),
                          json: json ? ["tree": .string(ShownPath.of(tree))] : nil, nested: false)
    }

    /// Uploads `tree` (also what `sign --publish s3://…` and `export --publish s3://…` end with).
    /// With index keys in `a` (sign, export, renew), a bucket index renewed or published meanwhile is merged and signed
    /// again; `releasing` names the pack a sign releases (it must not lose to an older copy).
    /// With `json`, nothing is printed but one JSON object: `json` with the upload's facts added (under "upload" when
    /// `nested`, as sign and export report theirs).
    static func upload(tree: URL, to location: S3Location, settings: ObjectStoreSettings, arguments a: Arguments, quiet: Bool, releasing: String? = nil,
                       json: [String: JSONValue]? = nil, nested: Bool = true, index: Bool = true) throws -> Int32 {
        do {
            var uploader = try ObjectStoreFlags.uploader(location, settings: settings, a)
            let indexKeys = a.values("--index-key")
            if !indexKeys.isEmpty {
                uploader.indexMerge = (try SigningKeys.privateKeys(indexKeys, role: RootDocument.Role.index, a), a.value("--state").map { URL(fileURLWithPath: $0) }, releasing)
            }
            let report = try uploader.upload(tree: tree, index: index) { path, step in
                guard !quiet, json == nil else { return }
                switch step {
                case .present: Output.out("present  \(path)\n")
                case .uploaded: Output.out("uploaded \(path)\n")
                case .uploadedInParts(let parts, let resumed):
                    let resumption = resumed > 0 ? ", \(resumed) already in the store from an interrupted upload" : ""
                    Output.out("uploaded \(path) (in \(parts) parts\(resumption))\n")
                }
            }
            if var object = json {
                let facts: [String: JSONValue] = [
                    "bucket": .string(location.bucket), "prefix": .string(location.key), "uploaded": .strings(report.uploaded),
                    "present": .strings(report.present), "bytesUploaded": .int(Int(report.bytesUploaded)),
                    "indexVersion": report.indexVersion.map { .int($0) } ?? .null, "abortedUploads": .int(report.abortedUploads),
                ]
                if nested { object["upload"] = .object(facts) } else { object.merge(facts) { _, b in b } }
                try JSONValue.object(object).print()
                return 0
            }
            var summary = "\(location): \(report.uploaded.count) uploaded (\(megabytes(report.bytesUploaded))), \(report.present.count) already there"
            if let version = report.indexVersion { summary += "; index.json version \(version)" }
            if report.abortedUploads > 0 { summary += "; \(report.abortedUploads) stale multipart upload\(report.abortedUploads == 1 ? "" : "s") aborted" }
            Output.out(summary + "\n")
            return 0
        } catch let e as PublishError {
            switch e {
            case .contentMismatch, .trust: throw CommandLineError.failure("\(e); index.json was not changed")
            default: break
            }
            throw CommandLineError.io("\(e); index.json was not changed (rerun to resume)")
        }
    }
}

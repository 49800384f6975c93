#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel
import PackPublish

/// `packtool upload TREE s3://BUCKET/PREFIX`: feeds a published tree to S3, R2 or any S3-compatible store in the
/// order clients need (see `TreeUploader`).
enum UploadCommand: Command {
    static let name = "upload"
    static let summary = "upload a published tree to S3, R2 or any S3-compatible store, index.json last"
    static let help = """
        usage: packtool upload TREE s3://BUCKET[/PREFIX] [--endpoint URL] [--region REGION] [--profile NAME]
                               [--path-style | --virtual-hosted] [--quiet]

        Uploads the tree `packtool sign --publish` wrote: every versioned object first (roots, manifests,
        archives, deltas), each checked after upload (the store's SHA-256 and size, or a read-back), then
        index.json, so no client ever sees an index naming an object that is not there yet. A rerun uploads
        only what is missing. A versioned object already in the bucket with other bytes is refused, never
        overwritten. Versioned objects get `Cache-Control: public, max-age=31536000, immutable`, index.json
        `public, max-age=60`.

          --endpoint, --region, --profile, --path-style, --virtual-hosted: as for `packtool presign`
          --quiet     print only the summary

        Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, or a profile in ~/.aws.
        Exit codes: 0 uploaded (or nothing to do), 1 a versioned object in the bucket differs,
        2 usage, credentials, network or store errors (rerun to resume).

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, options: Set(ObjectStoreFlags.options), flags: Set(ObjectStoreFlags.flags + ["--quiet"]))
        guard a.positionals.count == 2 else { throw CommandLineError.usage("expected TREE and s3://BUCKET/PREFIX") }
        let tree = URL(fileURLWithPath: a.positionals[0])
        guard FileSystem.isDirectory(tree.path) else { throw CommandLineError.usage("\(tree.path): no such folder (the tree `packtool sign --publish` wrote)") }
        let location: S3Location
        let settings: ObjectStoreSettings
        do { location = try S3Location(a.positionals[1]) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
        do { settings = try ObjectStoreFlags.settings(a) } catch let e as PublishError { throw CommandLineError.io("\(e)") }
        return try upload(tree: tree, to: location, settings: settings, quiet: a.flag("--quiet"))
    }

    /// Uploads `tree` (also what `sign --publish s3://…` and `export --publish s3://…` end with).
    static func upload(tree: URL, to location: S3Location, settings: ObjectStoreSettings, quiet: Bool) throws -> Int32 {
        do {
            let uploader = TreeUploader(client: try S3Client(settings: settings, bucket: location.bucket), prefix: location.key)
            let report = try uploader.upload(tree: tree) { path, uploaded in
                if !quiet { Output.out("\(uploaded ? "uploaded" : "present ") \(path)\n") }
            }
            let tenths = (report.bytesUploaded + 50_000) / 100_000
            Output.out("\(location): \(report.uploaded.count) uploaded (\(tenths / 10).\(tenths % 10) MB), \(report.present.count) already there\n")
            return 0
        } catch let e as PublishError {
            if case .contentMismatch = e { throw CommandLineError.failure("\(e); index.json was not changed") }
            throw CommandLineError.io("\(e); index.json was not changed (rerun to resume)")
        }
    }
}

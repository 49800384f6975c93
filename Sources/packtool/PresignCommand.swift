#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackPublish

/// `packtool presign s3://BUCKET/KEY --expires 1h`: prints a presigned GET URL for one object of a private bucket.
enum PresignCommand: Command {
    static let name = "presign"
    static let summary = "print a presigned GET URL for an object in S3, R2 or any S3-compatible store"
    static let help = """
        usage: packtool presign s3://BUCKET/KEY [--expires DURATION] [--endpoint URL] [--region REGION]
                                [--profile NAME] [--path-style | --virtual-hosted]

        Prints a URL anyone can GET the object with until it expires (AWS Signature Version 4, query form).
        Nothing is sent to the store: the URL is computed from your credentials, so check the key exists.

          --expires DURATION  how long the URL works: 90s, 30m, 1h, 7d or plain seconds (default 1h, at most 7d)
          --endpoint URL      the store (R2: https://ACCOUNT.r2.cloudflarestorage.com); default AWS_ENDPOINT_URL,
                              then the profile's endpoint_url, then AWS S3 in the region
          --region REGION     default AWS_REGION, then the profile's region, then us-east-1 (R2: auto)
          --profile NAME      a profile of ~/.aws/credentials and ~/.aws/config (default AWS_PROFILE or default)
          --path-style        https://HOST/BUCKET/KEY (the default with an --endpoint)
          --virtual-hosted    https://BUCKET.HOST/KEY (the default for AWS itself)

        Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or the profile.
        The secret is never printed.

        """

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, options: Set(["--expires"] + ObjectStoreFlags.options), flags: Set(ObjectStoreFlags.flags))
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one s3://BUCKET/KEY") }
        let expires = try duration(a.value("--expires") ?? "1h")
        let location: S3Location
        do { location = try S3Location(a.positionals[0]) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
        do {
            let settings = try ObjectStoreFlags.settings(a)
            Output.out(try Presigner.url(for: location, settings: settings, expires: expires) + "\n")
        } catch let e as PublishError { throw CommandLineError.io("\(e)") }
        return 0
    }

    /// Seconds from `90s`, `30m`, `1h`, `7d` or a plain number.
    static func duration(_ text: String) throws -> Int {
        let units: [Character: Int] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var digits = Substring(text), unit = 1
        if let last = text.last, let u = units[last] { digits = text.dropLast(); unit = u }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let n = Int(digits), n > 0, n <= Int(Int32.max) / unit else {
            throw CommandLineError.usage("--expires \(text): expected a duration such as 90s, 30m, 1h or 7d")
        }
        return n * unit
    }
}

/// The object-store flags `presign`, `upload`, `sign` and `export` share, resolved with the environment and ~/.aws files.
enum ObjectStoreFlags {
    static let options: [String] = ["--endpoint", "--region", "--profile"]
    static let flags: [String] = ["--path-style", "--virtual-hosted"]
    /// What `upload`, `sign` and `export` also take: when and how large files go in parts.
    static let uploadOptions: [String] = ["--multipart-threshold", "--part-size", "--timeout"]

    /// An uploader for `location` with `--multipart-threshold` and `--part-size` applied.
    static func uploader(_ location: S3Location, settings: ObjectStoreSettings, _ a: Arguments) throws -> TreeUploader {
        let client = try S3Client(settings: settings, bucket: location.bucket)
        client.timeout = try a.timeout(default: client.timeout)
        var uploader = TreeUploader(client: client, prefix: location.key)
        uploader.journal = MultipartJournal.standard(environment: ProcessInfo.processInfo.environment)
        if let text = a.value("--multipart-threshold") { uploader.multipartThreshold = try size(text, flag: "--multipart-threshold") }
        if let text = a.value("--part-size") {
            uploader.partSize = try size(text, flag: "--part-size")
            guard uploader.partSize >= 5 << 20 && uploader.partSize <= 5 << 30 else {
                throw CommandLineError.usage("--part-size \(text): S3 takes parts of 5 MiB to 5 GiB")
            }
        }
        return uploader
    }

    /// Bytes from `16MiB`, `64MB`, `1GiB`, `512KiB` or a plain number.
    static func size(_ text: String, flag: String) throws -> UInt64 {
        let units: [(String, UInt64)] = [("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("KB", 1_000), ("MB", 1_000_000), ("GB", 1_000_000_000)]
        var digits = Substring(text), unit: UInt64 = 1
        if let (suffix, u) = units.first(where: { text.hasSuffix($0.0) }) { digits = text.dropLast(suffix.count); unit = u }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = UInt64(digits), n > 0, n <= UInt64.max / unit / 2 else {
            throw CommandLineError.usage("\(flag) \(text): expected a size such as 16MiB, 64MB or 1GiB")
        }
        return n * unit
    }

    /// For `--publish s3://BUCKET/PREFIX`: the location, its settings (checked before anything is signed), and the
    /// folder in the state where the tree is published first (kept, so a rerun resumes the upload).
    static func destination(_ publish: String, state: String, _ a: Arguments) throws -> (S3Location, ObjectStoreSettings, URL)? {
        guard publish.hasPrefix("s3://") else { return nil }
        let location: S3Location
        do { location = try S3Location(publish) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
        let settings: ObjectStoreSettings
        do { settings = try Self.settings(a) } catch let e as PublishError { throw CommandLineError.io("\(e)") }
        let folder = ([location.bucket] + location.key.split(separator: "/").map { SigV4.encode(String($0), keepingSlashes: false) }).joined(separator: "/")
        return (location, settings, URL(fileURLWithPath: state).appendingPathComponent("uploads/" + folder))
    }

    static func settings(_ a: Arguments) throws -> ObjectStoreSettings {
        if a.flag("--path-style") && a.flag("--virtual-hosted") { throw CommandLineError.usage("--path-style and --virtual-hosted exclude each other") }
        let style: Bool? = a.flag("--path-style") ? true : a.flag("--virtual-hosted") ? false : nil
        let env = ProcessInfo.processInfo.environment
        return try ObjectStoreSettings.resolve(environment: env, home: env["HOME"], region: a.value("--region"), endpoint: a.value("--endpoint"),
                                               profile: a.value("--profile"), pathStyle: style)
    }
}

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

        Credentials come from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, or the profile.
        The secret is never printed.

        """
    static let options: [CommandOption] = [
        CommandOption("--expires", "DURATION", "how long the URL works: 90s, 30m, 1h, 7d or plain seconds (default 1h, at most 7d)"),
    ] + CommandOption.objectStore + [
        .format("text (the URL), or one JSON object: url, bucket, key, expiresIn seconds and expires time"),
    ]
    static let examples = [
        "packtool presign s3://packs/royal-mile/index.json --expires 1h",
        "packtool presign s3://packs/royal-mile/index.json --endpoint https://ACCOUNT.r2.cloudflarestorage.com --region auto --format json",
    ]

    static func run(_ args: [String]) throws -> Int32 {
        let a = try Arguments(args, table: Self.options)
        guard a.positionals.count == 1 else { throw CommandLineError.usage("expected one s3://BUCKET/KEY") }
        let expires = try duration(a.value("--expires") ?? "1h")
        let location: S3Location
        do { location = try S3Location(a.positionals[0]) } catch let e as PublishError { throw CommandLineError.usage("\(e)") }
        do {
            let settings = try ObjectStoreFlags.settings(a)
            let url = try Presigner.url(for: location, settings: settings, expires: expires)
            if try OutputFormat.json(a) {
                try JSONValue.object(["url": .string(url), "bucket": .string(location.bucket), "key": .string(location.key), "expiresIn": .int(expires)]).print()
            } else {
                Output.out(url + "\n")
            }
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


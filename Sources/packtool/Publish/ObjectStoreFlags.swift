#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles
import PackPublish

/// The object-store flags `presign`, `upload`, `sign` and `export` share, resolved with the environment and ~/.aws files.
/// Their names and help are rows of the option tables (`CommandOption.objectStore`, `CommandOption.uploadSizes`).
enum ObjectStoreFlags {
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
        let folder = ([location.bucket] + PathParts.split(location.key, omittingEmpty: true).map { SigV4.encode(String($0), keepingSlashes: false) }).joined(separator: "/")
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

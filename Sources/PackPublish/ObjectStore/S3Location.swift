#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles
import PackModel

/// `s3://BUCKET/KEY` (or `s3://BUCKET/PREFIX` for a tree): what the AWS tools call an S3 URI. The bucket must be a
/// valid bucket name (3–63 of `a–z 0–9 . -`), so a typo is caught here rather than as a confusing server error.
public struct S3Location: Equatable, Sendable, CustomStringConvertible {
    public let bucket: String
    /// The key (or prefix) without a leading slash; empty for the bucket's root.
    public let key: String

    public init(_ text: String) throws {
        guard text.hasPrefix("s3://") else { throw PublishError.objectStore("\(text): not an s3://BUCKET/KEY location") }
        let rest = text.dropFirst(5)
        let bucket = String(rest.prefix { $0 != "/" })
        let valid = (3...63).contains(bucket.count) && bucket.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "." || $0 == "-" }
            && bucket.first != "." && bucket.first != "-" && bucket.last != "." && bucket.last != "-"
        guard valid else {
            throw PublishError.objectStore("\(text): \"\(bucket)\" is not a bucket name (3 to 63 lower-case letters, digits, dots and hyphens)")
        }
        var key = String(rest.dropFirst(bucket.count))
        while key.hasPrefix("/") { key.removeFirst() }
        guard !key.utf8.contains(where: { $0 < 0x20 || $0 == 0x7f }) else { throw PublishError.objectStore("\(bucket): the key holds a control character") }
        // Many S3-compatible servers resolve `.` and `..`, so such a key could name another object (or bucket).
        let segments = PathParts.split(key)
        guard key.isEmpty || !segments.dropLast().contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) && segments.last != "." && segments.last != ".." else {
            throw PublishError.objectStore("s3://\(bucket)/\(key): empty, `.` or `..` segments are not allowed in a key")
        }
        self.bucket = bucket
        self.key = key
    }

    public var description: String { "s3://\(bucket)/\(key)" }
}


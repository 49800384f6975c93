#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// A published tree in an S3-compatible bucket (S3, R2, SeaweedFS). The index is swapped with a conditional PUT:
/// `If-Match` on the ETag the writer read, or `If-None-Match: *` when there was none; a store that answers 412 has
/// another writer's index, and the caller reads again. Versioned files are created with `If-None-Match: *`.
public struct BucketTree: PublishedTree {
    public let client: S3Client
    public let prefix: String

    public init(client: S3Client, prefix: String) {
        self.client = client
        var p = prefix
        while p.hasSuffix("/") { p.removeLast() }
        self.prefix = p
    }

    public var location: String { "s3://\(client.bucketName)\(prefix.isEmpty ? "" : "/" + prefix)" }
    public var memoryKey: String { location + " at " + client.endpointDescription }

    private func key(_ path: String) -> String { prefix.isEmpty ? path : prefix + "/" + path }

    public func readIndex() throws -> (bytes: Data, tag: String)? {
        let response = try client.send("GET", key: key(PublishLayout.index), keep: IndexCommit.indexCap + 1)
        if response.head.status == 404 { return nil }
        guard response.head.status == 200 else { throw client.refusal("GET \(key(PublishLayout.index))", response) }
        guard response.body.count <= IndexCommit.indexCap else { throw PublishError.objectStore("\(describe(PublishLayout.index)) is over \(IndexCommit.indexCap) bytes: not an index") }
        guard let etag = response.head.value("etag"), !etag.isEmpty else {
            throw PublishError.objectStore("GET \(key(PublishLayout.index)): the store sent no ETag, so the index cannot be replaced safely (compare-and-swap needs one)")
        }
        return (Data(response.body), etag)
    }

    public func swapIndex(_ bytes: Data, expected: String?) throws -> Bool {
        let digest = SHA256.hash(Array(bytes))
        let condition = expected.map { ("if-match", $0) } ?? ("if-none-match", "*")
        let headers = TreeUploader.objectHeaders(path: PublishLayout.index, digest: digest) + [("x-amz-checksum-sha256", TreeUploader.base64(digest)), condition]
        let response = try client.send("PUT", key: key(PublishLayout.index), headers: headers, document: Array(bytes))
        switch response.head.status {
        case 200: return true
        // 412: the index changed since it was read; 409: a concurrent conditional write is in progress (S3).
        case 412, 409: return false
        default: throw client.refusal("PUT \(key(PublishLayout.index))", response)
        }
    }

    public func read(_ path: String, cap: Int) throws -> Data? {
        let response = try client.send("GET", key: key(path), keep: cap + 1)
        if response.head.status == 404 { return nil }
        guard response.head.status == 200 else { throw client.refusal("GET \(key(path))", response) }
        guard response.body.count <= cap else { throw PublishError.objectStore("\(describe(path)) is over \(cap) bytes") }
        return Data(response.body)
    }

    public func stream(_ path: String, cap: UInt64, into body: (UnsafeRawBufferPointer) throws -> Void) throws -> Bool {
        // Optional closures escape in Swift's types; this one is used only during the call.
        let response = try withoutActuallyEscaping(body) { body in try client.send("GET", key: key(path), receiving: body, limit: cap + 1) }
        if response.head.status == 404 { return false }
        guard response.head.status == 200 else { throw client.refusal("GET \(key(path))", response) }
        return true
    }

    public func size(of path: String) throws -> UInt64? {
        let response = try client.send("HEAD", key: key(path))
        if response.head.status == 404 { return nil }
        guard response.head.status == 200 else { throw client.refusal("HEAD \(key(path))", response) }
        return response.head.contentLength ?? unknownSize
    }

    /// ListObjectsV2 with a delimiter: the objects and "folders" (common prefixes) directly under `path`. Nil when the
    /// store or the credentials allow no listing (403, 404, 405, 501: publishing needs only GET and PUT on objects, and
    /// least-privilege credentials often lack s3:ListBucket): the floor then probes versioned names one by one.
    public func names(in path: String) throws -> [String]? {
        let folder = key(path) + "/"
        var names: Set<String> = []
        let listed = try client.list("listing \(describe(path))", key: "", query: [("list-type", "2"), ("prefix", folder), ("delimiter", "/")],
                                     unlisted: [403, 404, 405, 501]) { text in
            for object in S3XML.elements("Contents", in: text) {
                if let key = S3XML.value("Key", in: object), key.hasPrefix(folder) { names.insert(String(key.dropFirst(folder.count))) }
            }
            for common in S3XML.elements("CommonPrefixes", in: text) {
                if let prefix = S3XML.value("Prefix", in: common), prefix.hasPrefix(folder) {
                    names.insert(String(prefix.dropFirst(folder.count).dropLast(prefix.hasSuffix("/") ? 1 : 0)))
                }
            }
            guard S3XML.value("IsTruncated", in: text) == "true" else { return nil }
            return [("continuation-token", S3XML.value("NextContinuationToken", in: text) ?? "")].filter { !$0.value.isEmpty }
        }
        guard listed else { return nil }
        return names.filter { !$0.isEmpty && !$0.contains("/") }.sorted()
    }

    public func create(_ path: String, bytes: Data) throws -> Bool {
        let digest = SHA256.hash(Array(bytes))
        let headers = TreeUploader.objectHeaders(path: path, digest: digest) + [("x-amz-checksum-sha256", TreeUploader.base64(digest)), ("if-none-match", "*")]
        let response = try client.send("PUT", key: key(path), headers: headers, document: Array(bytes))
        if response.head.status == 412 || response.head.status == 409 {
            guard try read(path, cap: bytes.count + 1) == bytes else {
                throw PublishError.contentMismatch("\(describe(path)) is already in the bucket with other bytes; versioned objects are never overwritten")
            }
            return false
        }
        guard response.head.status == 200 else { throw client.refusal("PUT \(key(path))", response) }
        return true
    }
}

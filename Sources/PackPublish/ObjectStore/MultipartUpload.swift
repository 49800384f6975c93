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
import PackCrypto
import PackSigning
import PackModel
import Dispatch

/// One large file sent as an S3 multipart upload that survives interruption:
/// - an upload of ours already open for the key (an earlier run was killed or lost the store; `MultipartJournal` knows
///   which are ours) is resumed: each part the store lists is compared with the local bytes — its SHA-256 where the
///   store lists one, else its ETag against the part's MD5 (S3's part ETag) — and only missing or differing parts are
///   sent again;
/// - every part is sent with its SHA-256 (`x-amz-checksum-sha256`), which the store checks on receipt;
/// - completion is conditional (`If-None-Match: *`), so a versioned name is never replaced;
/// - once the object is in place, our other uploads still open for the key are aborted: stores keep (and bill) the
///   parts of open uploads until then.
struct MultipartUpload {
    let client: S3Client
    let key: String
    let path: String
    let size: UInt64
    let partSize: UInt64
    /// The SHA-256 the tree's signed index gives the file, when it names it: the read that hashes the parts also
    /// hashes the whole, and the upload is completed only if the two agree.
    let expectedDigest: [UInt8]?
    /// Sent when the upload is created: the object's content type, caching and `x-amz-meta-sha256`.
    let headers: [(name: String, value: String)]
    /// Which open uploads are this user's own.
    let journal: MultipartJournal

    /// S3's limits: at most 10,000 parts, each at least 5 MiB but the last, and at most 5 GiB.
    static let maxParts: UInt64 = 10_000
    static let minPartSize: UInt64 = 5 << 20
    static let maxPartSize: UInt64 = 5 << 30

    struct Part: Equatable {
        let number: Int
        let offset: UInt64
        let size: UInt64
        let sha256: [UInt8]
    }

    struct Outcome {
        /// False when the store refused to complete because the object appeared meanwhile (412): the caller compares it.
        var completed: Bool
        var resumedParts: Int
        var bytesSent: UInt64
        var abortedUploads: Int
        /// The whole file's SHA-256 and its parts, as read while uploading.
        var digest: [UInt8]
        var parts: [Part]
    }

    /// A part the store lists for an open upload.
    struct Listed {
        let size: UInt64
        let etag: String
        let sha256: String?
    }

    /// The part size for a file: the preferred size, raised (to whole MiB) when the file would need more than
    /// 10,000 parts.
    static func partSize(for size: UInt64, preferred: UInt64) -> UInt64 {
        let needed = (size + maxParts - 1) / maxParts
        let rounded = ((needed + (1 << 20) - 1) >> 20) << 20
        return max(preferred, rounded)
    }

    /// Where each part starts and how long it is.
    static func layout(size: UInt64, partSize: UInt64) -> [(offset: UInt64, size: UInt64)] {
        guard size > 0 else { return [(0, 0)] }
        return stride(from: 0, to: size, by: Int(partSize)).map { (UInt64($0), min(partSize, size - UInt64($0))) }
    }

    /// The file's SHA-256 and each part's, in one read of the file (without uploading: tests and callers that need
    /// the parts alone).
    static func hash(fileAt path: String, partSize: UInt64) throws -> (digest: [UInt8], size: UInt64, parts: [Part]) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw PublishError.io("\(path): cannot read it (\(String(cString: strerror(errno))))") }
        var parts: [Part] = []
        let digest = try PartReader(path: path, layout: layout(size: UInt64(info.st_size), partSize: partSize)).readParts(md5For: []) { part, _ in
            parts.append(part)
            return true
        }
        return (digest, UInt64(info.st_size), parts)
    }

    /// The checksum a store reports for an object assembled from these parts: the SHA-256 of the parts' SHA-256s,
    /// base64, then `-` and the number of parts (S3's "composite" checksum).
    static func compositeChecksum(of parts: [Part]) -> String {
        let hasher = SHA256()
        for part in parts { hasher.update(part.sha256) }
        return Data(hasher.finalize()).base64EncodedString() + "-\(parts.count)"
    }

    func run() throws -> Outcome {
        let layout = Self.layout(size: size, partSize: partSize)
        // Named by bucket and key only, not the endpoint (a store reached through another name or a relay is the same
        // store); an ID recorded for another store's bucket of the same name is simply not among those listed here.
        let object = client.bucket + "/" + key
        let recorded = Set(journal.uploads(for: object))
        // Our own uploads still open for the key (another tool's are never resumed nor aborted).
        let own = recorded.isEmpty ? [] : try openUploads().filter { recorded.contains($0) }
        // Resume the one with the most parts of the right sizes (their bytes are checked as the file is read); the
        // others are stale.
        var chosen: (id: String, listed: [Int: Listed])?
        for id in own {
            let listed = try listedParts(of: id)
            let fitting = listed.filter { $0.key <= layout.count && $0.value.size == layout[$0.key - 1].size }
            if !fitting.isEmpty && fitting.count > (chosen?.listed.count ?? 0) { chosen = (id, fitting) }
        }
        let id: String
        if let chosen { id = chosen.id } else {
            id = try create()
            journal.record(id, for: object)
        }
        let listed = chosen?.listed ?? [:]
        let (digest, parts, etags, resumed, sent) = try readAndSend(layout: layout, listed: listed, to: id)
        if let expectedDigest, digest != expectedDigest {
            try? abort(id)
            journal.forget([id], for: object)
            throw PublishError.io("\(path) is not the file the tree's index.json signs (its SHA-256 differs): the tree was changed after signing; publish again")
        }
        let completed = try complete(id, parts: parts, etags: etags)
        var aborted = 0
        for other in own where other != id {
            try abort(other)
            aborted += 1
        }
        if !completed { try abort(id) }
        journal.forget(Set(own).union([id]), for: object)
        return Outcome(completed: completed, resumedParts: resumed, bytesSent: sent, abortedUploads: aborted, digest: digest, parts: parts)
    }

    /// Reads the file once, hashing each part (and the whole), while up to `connections` connections send the parts
    /// the store does not already hold: the read and the sends overlap, so a large archive costs one pass over the
    /// disk and the link is kept busy. A listed part counts as held only if its SHA-256 (or, where the store lists
    /// none, its MD5 ETag) is the local part's.
    func readAndSend(layout: [(offset: UInt64, size: UInt64)], listed: [Int: Listed], to id: String)
        throws -> (digest: [UInt8], parts: [Part], etags: [Int: String], resumed: Int, bytesSent: UInt64) {
        let queue = PartQueue()
        let workers = min(Self.connections, max(1, layout.count - listed.count))
        let upload = UncheckedSendable(self)
        let needMD5 = Set(listed.filter { $0.value.sha256 == nil }.keys)
        let reader = PartReader(path: path, layout: layout)
        BlockingThreads.run(1 + workers) { worker in
            if worker == 0 {
                do {
                    let digest = try reader.readParts(md5For: needMD5) { part, md5 in
                        queue.record(part: part)
                        if let held = listed[part.number], held.sha256.map({ $0 == Data(part.sha256).base64EncodedString() })
                            ?? (md5.map { MultipartUpload.unquoted(held.etag).lowercased() == Hex.encode($0) } ?? false) {
                            queue.resume(part.number, etag: held.etag)
                        } else {
                            queue.push(part)
                        }
                        return !queue.failed
                    }
                    queue.finish(digest: digest)
                } catch {
                    queue.fail(error)
                }
                queue.close(workers: workers)
                return
            }
            while let part = queue.pop() {
                do { queue.sent(part, etag: try upload.value.send(part, to: id)) } catch { queue.fail(error) }
            }
        }
        return try queue.result()
    }

    /// The IDs of the uploads open for exactly this key, newest first.
    func openUploads() throws -> [String] {
        var ids: [(id: String, initiated: String)] = []
        _ = try client.list("listing the uploads open for \(key)", key: "", query: [("uploads", ""), ("prefix", key)]) { text in
            for upload in S3XML.elements("Upload", in: text) where S3XML.value("Key", in: upload) == key {
                if let id = S3XML.value("UploadId", in: upload), !id.isEmpty { ids.append((id, S3XML.value("Initiated", in: upload) ?? "")) }
            }
            guard S3XML.value("IsTruncated", in: text) == "true" else { return nil }
            return [("key-marker", S3XML.value("NextKeyMarker", in: text) ?? ""), ("upload-id-marker", S3XML.value("NextUploadIdMarker", in: text) ?? "")]
                .filter { !$0.value.isEmpty }
        }
        return ids.sorted { $0.initiated > $1.initiated }.map(\.id)
    }

    /// The parts the store lists for upload `id`, by part number; none when the upload is gone.
    func listedParts(of id: String) throws -> [Int: Listed] {
        var listed: [Int: Listed] = [:]
        var doubled: Set<Int> = []
        // The upload may have been completed or aborted by another run since it was listed (404).
        let found = try client.list("listing the parts of an upload of \(key)", key: key, query: [("uploadId", id), ("max-parts", "1000")],
                                    goneIfMissing: true) { text in
            for part in S3XML.elements("Part", in: text) {
                guard let number = S3XML.value("PartNumber", in: part).flatMap({ Int($0) }), number >= 1,
                      let size = S3XML.value("Size", in: part).flatMap({ UInt64($0) }), let etag = S3XML.value("ETag", in: part) else { continue }
                // A number listed twice (a store that keeps a replaced part's old entry) cannot be told apart: sent again.
                if listed[number] != nil || doubled.contains(number) {
                    listed[number] = nil
                    doubled.insert(number)
                    continue
                }
                listed[number] = Listed(size: size, etag: etag, sha256: S3XML.value("ChecksumSHA256", in: part).flatMap { $0.isEmpty ? nil : $0 })
            }
            guard S3XML.value("IsTruncated", in: text) == "true" else { return nil }
            return [("part-number-marker", S3XML.value("NextPartNumberMarker", in: text) ?? "")].filter { !$0.value.isEmpty }
        }
        return found ? listed : [:]
    }

    func create() throws -> String {
        let response = try client.send("POST", key: key, query: [("uploads", "")], headers: headers + [("x-amz-checksum-algorithm", "SHA256")])
        guard response.head.status == 200 else { throw client.refusal("starting a multipart upload of \(key)", response) }
        guard let id = S3XML.value("UploadId", in: Substring(decoding: response.body, as: UTF8.self)), !id.isEmpty else {
            throw PublishError.objectStore("starting a multipart upload of \(key): the store's answer names no upload ID")
        }
        return id
    }

    /// Parts go on this many connections at once: one connection leaves the link idle during each part's round
    /// trips and the store's work on it (AWS's tools use 10). Each connection streams its part from disk, so memory
    /// grows by one 1 MiB buffer per connection.
    static let connections = 4

    /// Sends one part; returns the ETag the store gives it.
    func send(_ part: Part, to id: String) throws -> String {
        let response = try client.send("PUT", key: key, query: [("partNumber", String(part.number)), ("uploadId", id)],
                                       headers: [("x-amz-checksum-sha256", Data(part.sha256).base64EncodedString())],
                                       body: .init(path: path, offset: part.offset, size: part.size, sha256: part.sha256))
        guard response.head.status == 200 else { throw client.refusal("PUT \(key) part \(part.number)", response) }
        guard let etag = response.head.value("etag"), !etag.isEmpty else {
            throw PublishError.objectStore("PUT \(key) part \(part.number): the store's answer has no ETag")
        }
        return etag
    }

    /// Completes the upload with every part; false when the store says the object already exists (412).
    func complete(_ id: String, parts: [Part], etags: [Int: String]) throws -> Bool {
        var document = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        for part in parts {
            document += "<Part><PartNumber>\(part.number)</PartNumber><ETag>\(S3XML.escape(etags[part.number]!))</ETag>"
                + "<ChecksumSHA256>\(Data(part.sha256).base64EncodedString())</ChecksumSHA256></Part>"
        }
        document += "</CompleteMultipartUpload>"
        let response = try client.send("POST", key: key, query: [("uploadId", id)],
                                       headers: [("content-type", "application/xml"), ("if-none-match", "*")], document: Array(document.utf8))
        if response.head.status == 412 { return false }
        // S3 can answer 200 and still report an error in the body (the completion failed after the head was sent).
        let text = Substring(decoding: response.body, as: UTF8.self)
        guard response.head.status == 200, !text.contains("<Error>") else {
            throw client.refusal("completing the multipart upload of \(key)", response)
        }
        return true
    }

    func abort(_ id: String) throws {
        let response = try client.send("DELETE", key: key, query: [("uploadId", id)])
        guard [200, 204, 404].contains(response.head.status) else { throw client.refusal("aborting a stale upload of \(key)", response) }
    }

    static func unquoted(_ etag: String) -> String {
        etag.count >= 2 && etag.hasPrefix("\"") && etag.hasSuffix("\"") ? String(etag.dropFirst().dropLast()) : etag
    }
}

/// A value handed to worker threads that only read it (the upload's client and settings; each request opens its own
/// connection).
struct UncheckedSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

/// Reads a file from start to end once, in 64 KiB pieces, hashing each part as laid out (SHA-256, and MD5 for the
/// parts asked for) and the whole file.
struct PartReader {
    let path: String
    let layout: [(offset: UInt64, size: UInt64)]

    /// Calls `each` as every part is read (with its MD5 when asked for); stops early when it returns false. Returns
    /// the whole file's SHA-256.
    func readParts(md5For: Set<Int>, _ each: (MultipartUpload.Part, [UInt8]?) throws -> Bool) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)  // rooted-writes: allow read only: the file the publisher named to upload
        guard fd >= 0 else { throw PublishError.io("\(path): cannot open it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        let whole = SHA256()
        for (index, slot) in layout.enumerated() {
            let part = SHA256()
            let md5 = md5For.contains(index + 1) ? MD5() : nil
            var done: UInt64 = 0
            while done < slot.size {
                let n = read(fd, buffer.baseAddress, Int(min(UInt64(buffer.count), slot.size - done)))
                if n < 0 && errno == EINTR { continue }
                guard n >= 0 else { throw PublishError.io("\(path): cannot read it (\(String(cString: strerror(errno))))") }
                guard n > 0 else { throw PublishError.io("\(path): it changed while being uploaded (shorter than it was)") }
                let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<n])
                whole.update(bytes)
                part.update(bytes)
                md5?.update(bytes)
                done += UInt64(n)
            }
            guard try each(MultipartUpload.Part(number: index + 1, offset: slot.offset, size: slot.size, sha256: part.finalize()), md5?.finalize()) else {
                return whole.finalize()
            }
        }
        var extra: UInt8 = 0
        guard read(fd, &extra, 1) == 0 else { throw PublishError.io("\(path): it changed while being uploaded (longer than it was)") }
        return whole.finalize()
    }
}

/// The parts between the reader and the connections sending them: parts hashed and waiting, parts the store already
/// held, parts sent, and the first failure (after which no connection takes another part).
final class PartQueue: @unchecked Sendable {
    private let lock = Lock()
    private let ready = DispatchSemaphore(value: 0)
    private var waiting: [MultipartUpload.Part] = []
    private var parts: [MultipartUpload.Part] = []
    private var etags: [Int: String] = [:]
    private var resumed = 0
    private var bytesSent: UInt64 = 0
    private var digest: [UInt8]?
    private var failure: Error?

    var failed: Bool { lock.withLock { failure != nil } }

    func record(part: MultipartUpload.Part) { lock.withLock { parts.append(part) } }

    func resume(_ number: Int, etag: String) {
        lock.withLock {
            etags[number] = etag
            resumed += 1
        }
    }

    func push(_ part: MultipartUpload.Part) {
        lock.withLock { waiting.append(part) }
        ready.signal()
    }

    /// The next part to send; nil once the reader is done and nothing waits, or after a failure.
    func pop() -> MultipartUpload.Part? {
        ready.wait()
        return lock.withLock { failure == nil && !waiting.isEmpty ? waiting.removeFirst() : nil }
    }

    func sent(_ part: MultipartUpload.Part, etag: String) {
        lock.withLock {
            etags[part.number] = etag
            bytesSent += part.size
        }
    }

    func finish(digest: [UInt8]) { lock.withLock { self.digest = digest } }

    func fail(_ error: Error) { lock.withLock { if failure == nil { failure = error } } }

    /// Wakes every connection once more, so each sees the end.
    func close(workers: Int) { for _ in 0..<workers { ready.signal() } }

    func result() throws -> (digest: [UInt8], parts: [MultipartUpload.Part], etags: [Int: String], resumed: Int, bytesSent: UInt64) {
        try lock.withLock {
            if let failure { throw failure }
            guard let digest, etags.count == parts.count else { throw PublishError.objectStore("a part was neither sent nor found in the store; rerun to resume") }
            return (digest, parts, etags, resumed, bytesSent)
        }
    }
}

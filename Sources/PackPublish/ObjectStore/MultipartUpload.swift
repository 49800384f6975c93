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
    let parts: [Part]
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
    }

    /// The part size for a file: the preferred size, raised (to whole MiB) when the file would need more than
    /// 10,000 parts.
    static func partSize(for size: UInt64, preferred: UInt64) -> UInt64 {
        let needed = (size + maxParts - 1) / maxParts
        let rounded = ((needed + (1 << 20) - 1) >> 20) << 20
        return max(preferred, rounded)
    }

    /// The file's SHA-256 and each part's, in one read of the file.
    static func hash(fileAt path: String, partSize: UInt64) throws -> (digest: [UInt8], size: UInt64, parts: [Part]) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PublishError.io("\(path): cannot open it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        let whole = SHA256()
        var part = SHA256()
        var parts: [Part] = []
        var size: UInt64 = 0, partStart: UInt64 = 0
        func endPart() {
            parts.append(Part(number: parts.count + 1, offset: partStart, size: size - partStart, sha256: part.finalize()))
            part = SHA256()
            partStart = size
        }
        while true {
            let room = Int(min(UInt64(buffer.count), partStart + partSize - size))
            let n = read(fd, buffer.baseAddress, room)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw PublishError.io("\(path): cannot read it (\(String(cString: strerror(errno))))") }
            if n == 0 { break }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<n])
            whole.update(bytes)
            part.update(bytes)
            size += UInt64(n)
            if size - partStart == partSize { endPart() }
        }
        if size > partStart || parts.isEmpty { endPart() }
        return (whole.finalize(), size, parts)
    }

    /// The checksum a store reports for an object assembled from these parts: the SHA-256 of the parts' SHA-256s,
    /// base64, then `-` and the number of parts (S3's "composite" checksum).
    static func compositeChecksum(of parts: [Part]) -> String {
        let hasher = SHA256()
        for part in parts { hasher.update(part.sha256) }
        return Data(hasher.finalize()).base64EncodedString() + "-\(parts.count)"
    }

    func run() throws -> Outcome {
        // Named by bucket and key only, not the endpoint (a store reached through another name or a relay is the same
        // store); an ID recorded for another store's bucket of the same name is simply not among those listed here.
        let object = client.bucket + "/" + key
        let recorded = Set(journal.uploads(for: object))
        // Our own uploads still open for the key (another tool's are never resumed nor aborted).
        let own = recorded.isEmpty ? [] : try openUploads().filter { recorded.contains($0) }
        // Resume the one with the most parts that match the local bytes; one with none is stale.
        var resumable: (id: String, etags: [Int: String])?
        for id in own {
            let etags = try verifiedParts(of: id)
            if !etags.isEmpty && etags.count > (resumable?.etags.count ?? 0) { resumable = (id, etags) }
        }
        let id: String
        if let resumable { id = resumable.id } else {
            id = try create()
            journal.record(id, for: object)
        }
        var etags = resumable?.etags ?? [:]
        let resumed = etags.count
        var sent: UInt64 = 0
        for part in parts where etags[part.number] == nil {
            etags[part.number] = try send(part, to: id)
            sent += part.size
        }
        let completed = try complete(id, etags: etags)
        var aborted = 0
        for other in own where other != id {
            try abort(other)
            aborted += 1
        }
        if !completed { try abort(id) }
        journal.forget(Set(own).union([id]), for: object)
        return Outcome(completed: completed, resumedParts: resumed, bytesSent: sent, abortedUploads: aborted)
    }

    /// The IDs of the uploads open for exactly this key, newest first.
    func openUploads() throws -> [String] {
        var ids: [(id: String, initiated: String)] = []
        var markers: [(name: String, value: String)] = []
        while true {
            let response = try client.send("GET", key: "", query: [("uploads", ""), ("prefix", key)] + markers, keep: 4 << 20)
            guard response.head.status == 200 else { throw TreeUploader.refusal("listing the uploads open for \(key)", response) }
            let text = Substring(decoding: response.body, as: UTF8.self)
            for upload in S3XML.elements("Upload", in: text) where S3XML.value("Key", in: upload) == key {
                if let id = S3XML.value("UploadId", in: upload), !id.isEmpty { ids.append((id, S3XML.value("Initiated", in: upload) ?? "")) }
            }
            guard S3XML.value("IsTruncated", in: text) == "true", let nextKey = S3XML.value("NextKeyMarker", in: text),
                  let nextID = S3XML.value("NextUploadIdMarker", in: text), markers.last?.value != nextID else { break }
            markers = [("key-marker", nextKey), ("upload-id-marker", nextID)]
        }
        return ids.sorted { $0.initiated > $1.initiated }.map(\.id)
    }

    /// The parts already in upload `id` that hold exactly the local bytes, by part number, with their ETags.
    func verifiedParts(of id: String) throws -> [Int: String] {
        var verified: [Int: String] = [:]
        var marker: String?
        while true {
            var query: [(name: String, value: String)] = [("uploadId", id), ("max-parts", "1000")]
            if let marker { query.append(("part-number-marker", marker)) }
            let response = try client.send("GET", key: key, query: query, keep: 4 << 20)
            // The upload may have been completed or aborted by another run since it was listed.
            if response.head.status == 404 { return [:] }
            guard response.head.status == 200 else { throw TreeUploader.refusal("listing the parts of an upload of \(key)", response) }
            let text = Substring(decoding: response.body, as: UTF8.self)
            for listed in S3XML.elements("Part", in: text) {
                guard let number = S3XML.value("PartNumber", in: listed).flatMap({ Int($0) }), (1...parts.count).contains(number),
                      let size = S3XML.value("Size", in: listed).flatMap({ UInt64($0) }), let etag = S3XML.value("ETag", in: listed) else { continue }
                let part = parts[number - 1]
                guard size == part.size else { continue }
                if let checksum = S3XML.value("ChecksumSHA256", in: listed), !checksum.isEmpty {
                    if checksum == Data(part.sha256).base64EncodedString() { verified[number] = etag }
                } else if try Self.unquoted(etag).lowercased() == Hex.encode(md5(of: part)) {
                    verified[number] = etag
                }
            }
            guard S3XML.value("IsTruncated", in: text) == "true", let next = S3XML.value("NextPartNumberMarker", in: text), next != marker else { break }
            marker = next
        }
        return verified
    }

    func create() throws -> String {
        let response = try client.send("POST", key: key, query: [("uploads", "")], headers: headers + [("x-amz-checksum-algorithm", "SHA256")])
        guard response.head.status == 200 else { throw TreeUploader.refusal("starting a multipart upload of \(key)", response) }
        guard let id = S3XML.value("UploadId", in: Substring(decoding: response.body, as: UTF8.self)), !id.isEmpty else {
            throw PublishError.objectStore("starting a multipart upload of \(key): the store's answer names no upload ID")
        }
        return id
    }

    /// Sends one part; returns the ETag the store gives it.
    func send(_ part: Part, to id: String) throws -> String {
        let response = try client.send("PUT", key: key, query: [("partNumber", String(part.number)), ("uploadId", id)],
                                       headers: [("x-amz-checksum-sha256", Data(part.sha256).base64EncodedString())],
                                       body: .init(path: path, offset: part.offset, size: part.size, sha256: part.sha256))
        guard response.head.status == 200 else { throw TreeUploader.refusal("PUT \(key) part \(part.number) of \(parts.count)", response) }
        guard let etag = response.head.value("etag"), !etag.isEmpty else {
            throw PublishError.objectStore("PUT \(key) part \(part.number): the store's answer has no ETag")
        }
        return etag
    }

    /// Completes the upload with every part; false when the store says the object already exists (412).
    func complete(_ id: String, etags: [Int: String]) throws -> Bool {
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
            throw TreeUploader.refusal("completing the multipart upload of \(key)", response)
        }
        return true
    }

    func abort(_ id: String) throws {
        let response = try client.send("DELETE", key: key, query: [("uploadId", id)])
        guard [200, 204, 404].contains(response.head.status) else { throw TreeUploader.refusal("aborting a stale upload of \(key)", response) }
    }

    /// The MD5 of one part of the local file (S3's ETag for a part, where the store lists no SHA-256).
    func md5(of part: Part) throws -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw PublishError.io("\(path): cannot open it (\(String(cString: strerror(errno))))") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: SHA256.fileBufferBytes, alignment: 16)
        defer { buffer.deallocate() }
        let hasher = MD5()
        var done: UInt64 = 0
        while done < part.size {
            let n = pread(fd, buffer.baseAddress, Int(min(UInt64(buffer.count), part.size - done)), off_t(part.offset + done))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw PublishError.io("\(path): it changed while being uploaded (short read)") }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<n]))
            done += UInt64(n)
        }
        return hasher.finalize()
    }

    static func unquoted(_ etag: String) -> String {
        etag.count >= 2 && etag.hasPrefix("\"") && etag.hasSuffix("\"") ? String(etag.dropFirst().dropLast()) : etag
    }
}

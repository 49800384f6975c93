import Foundation
import PackCrypto
@testable import PackPublish
import TestSupport
import XCTest

/// A large file is cut into parts whose SHA-256s (and the whole file's) come from one read; the composite checksum is
/// S3's; part sizes grow to keep within 10,000 parts.
final class MultipartUploadTests: XCTestCase {
    private func file(_ bytes: [UInt8]) throws -> String {
        let path = try temporaryDirectory() + "/archive.tar"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func testPartsCoverTheFileInOrderAndTheLastIsShort() throws {
        let bytes = (0..<(2 * 100_000 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let (digest, size, parts) = try MultipartUpload.hash(fileAt: try file(bytes), partSize: 100_000)
        XCTAssertEqual(size, UInt64(bytes.count))
        XCTAssertEqual(digest, SHA256.hash(bytes))
        XCTAssertEqual(parts.map(\.number), [1, 2, 3])
        XCTAssertEqual(parts.map(\.offset), [0, 100_000, 200_000])
        XCTAssertEqual(parts.map(\.size), [100_000, 100_000, 17])
        XCTAssertEqual(parts[2].sha256, SHA256.hash(Array(bytes[200_000...])))
    }

    func testAFileOfExactlyTwoPartsHasNoEmptyThirdAndAnEmptyFileHasOnePart() throws {
        let (_, _, two) = try MultipartUpload.hash(fileAt: try file([UInt8](repeating: 7, count: 200_000)), partSize: 100_000)
        XCTAssertEqual(two.map(\.size), [100_000, 100_000])
        let (_, _, empty) = try MultipartUpload.hash(fileAt: try file([]), partSize: 100_000)
        XCTAssertEqual(empty.map(\.size), [0])
    }

    func testTheCompositeChecksumIsTheSHA256OfThePartSHA256sWithTheirCount() {
        let parts = [MultipartUpload.Part(number: 1, offset: 0, size: 3, sha256: SHA256.hash(Array("abc".utf8))),
                     MultipartUpload.Part(number: 2, offset: 3, size: 3, sha256: SHA256.hash(Array("def".utf8)))]
        // Python: base64(sha256(sha256(b"abc").digest() + sha256(b"def").digest()).digest()) + "-2"
        XCTAssertEqual(MultipartUpload.compositeChecksum(of: parts), "nATTAFe3VK8bLS1PVnV4LdYaWmWcNO5sKvR1JrZsr6Y=-2")
    }

    func testThePartSizeGrowsToKeepWithinTenThousandParts() {
        XCTAssertEqual(MultipartUpload.partSize(for: 1 << 30, preferred: 16 << 20), 16 << 20)
        let huge: UInt64 = 400 << 30
        let size = MultipartUpload.partSize(for: huge, preferred: 16 << 20)
        XCTAssertLessThanOrEqual((huge + size - 1) / size, 10_000)
        XCTAssertEqual(size % (1 << 20), 0, "whole MiB")
    }
}

/// The journal keeps the uploads this user started, per object; nothing breaks without a home folder.
final class MultipartJournalTests: XCTestCase {
    func testRecordedUploadsAreListedPerObjectAndForgotten() throws {
        let journal = MultipartJournal(folder: try temporaryDirectory() + "/cache/packtool/multipart")
        journal.record("one", for: "public/a.tar")
        journal.record("two", for: "public/a.tar")
        journal.record("three", for: "public/b.tar")
        XCTAssertEqual(journal.uploads(for: "public/a.tar"), ["one", "two"])
        journal.forget(["one"], for: "public/a.tar")
        XCTAssertEqual(journal.uploads(for: "public/a.tar"), ["two"])
        journal.forget(["two"], for: "public/a.tar")
        XCTAssertEqual(journal.uploads(for: "public/a.tar"), [])
        XCTAssertEqual(journal.uploads(for: "public/b.tar"), ["three"])
    }

    /// The journal writes beneath its folder's handle: links planted at its file's name and at the temporary name the
    /// earlier code wrote through (`<file>.<pid>.tmp`, opened with O_TRUNC) are never followed, so the files they point
    /// at keep their bytes; the journal's file is a regular file again afterwards; its folder is private (0700).
    func testLinksPlantedInTheJournalFolderAreNeverWrittenThrough() throws {
        let dir = try temporaryDirectory()
        let journal = MultipartJournal(folder: dir + "/cache/multipart")
        journal.record("first", for: "public/a.tar")
        let file = try XCTUnwrap(journal.file(for: "public/a.tar"))
        let victim = dir + "/victim.txt", other = dir + "/other.txt"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: victim))
        try Data("keep me too".utf8).write(to: URL(fileURLWithPath: other))
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createSymbolicLink(atPath: file, withDestinationPath: victim)
        try FileManager.default.createSymbolicLink(atPath: file + ".\(getpid()).tmp", withDestinationPath: other)
        journal.record("second", for: "public/a.tar")
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "keep me")
        XCTAssertEqual(try String(contentsOfFile: other, encoding: .utf8), "keep me too")
        let kind = try FileManager.default.attributesOfItem(atPath: file)[.type] as? FileAttributeType
        XCTAssertEqual(kind, .typeRegular)
        XCTAssertEqual(journal.uploads(for: "public/a.tar"), ["second"])
        let mode = try FileManager.default.attributesOfItem(atPath: dir + "/cache/multipart")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
    }

    func testOnlyTheNewestSixteenAreKept() throws {
        let journal = MultipartJournal(folder: try temporaryDirectory())
        for n in 0..<20 { journal.record("id\(n)", for: "b/k") }
        XCTAssertEqual(journal.uploads(for: "b/k"), (4..<20).map { "id\($0)" })
    }

    func testWithoutAHomeThereIsNoJournalAndRecordingDoesNothing() {
        let journal = MultipartJournal.standard(environment: ["HOME": "/nonexistent-home"])
        XCTAssertNil(journal.folder)
        journal.record("one", for: "b/k")
        XCTAssertEqual(journal.uploads(for: "b/k"), [])
    }

    func testTheCacheFolderIsXDGsThenHomes() throws {
        let cache = try temporaryDirectory()
        XCTAssertEqual(MultipartJournal.standard(environment: ["XDG_CACHE_HOME": cache, "HOME": "/root"]).folder, cache + "/packtool/multipart")
        XCTAssertEqual(MultipartJournal.standard(environment: ["XDG_CACHE_HOME": "relative", "HOME": cache]).folder, cache + "/.cache/packtool/multipart")
    }
}

/// S3's answers are read by element: several of a kind, entities decoded, odd input left as it is.
final class S3XMLTests: XCTestCase {
    private let listing: Substring = """
        <ListMultipartUploadsResult><Upload><Key>packs/a&amp;b.tar</Key><UploadId>1</UploadId></Upload>\
        <Upload><Key>packs/c.tar</Key><UploadId>2</UploadId></Upload><IsTruncated>false</IsTruncated></ListMultipartUploadsResult>
        """

    func testEveryElementOfAKindIsFoundInOrderWithEntitiesDecoded() {
        let uploads = S3XML.elements("Upload", in: listing)
        XCTAssertEqual(uploads.count, 2)
        XCTAssertEqual(S3XML.value("Key", in: uploads[0]), "packs/a&b.tar")
        XCTAssertEqual(S3XML.value("UploadId", in: uploads[1]), "2")
        XCTAssertEqual(S3XML.value("IsTruncated", in: listing), "false")
        XCTAssertNil(S3XML.value("NextKeyMarker", in: listing))
    }

    func testNumericReferencesDecodeAndUnknownOrUnterminatedEntitiesStayAsTheyAre() {
        XCTAssertEqual(S3XML.decode("&quot;abc&quot; &#233;&#x41; &nbsp; a&b"), "\"abc\" éA &nbsp; a&b")
        XCTAssertEqual(S3XML.decode("&#xFFFFFFFF;"), "&#xFFFFFFFF;")
    }

    func testEscapedTextDecodesBackToItself() {
        let text = "\"etag\" <&> done"
        XCTAssertEqual(S3XML.decode(Substring(S3XML.escape(text))), text)
    }

    func testAnUnclosedElementIsNotFound() {
        XCTAssertEqual(S3XML.elements("Part", in: "<Part><PartNumber>1</PartNumber>"), [])
    }
}

import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackPublish
import PackTrust
import TestSupport
import XCTest

/// Published archives are what TarEncoding makes of their signed documents (DESIGN.md §8.6): every header byte, every
/// pad byte and the trailer follow from the manifest's (or delta's) entries, sizes and `created` time, so a client can
/// authenticate an archive in one pass with nothing but the manifest.
final class PublishedArchiveBytesTests: XCTestCase {
    /// Walks `archive` as the client would: for each entry in order, the encoded header, content of the recorded size
    /// and SHA-256 (when known), zero padding; then exactly the 1024-byte trailer at the end.
    private func assertEncoded(_ archive: [UInt8], _ entries: [(path: String, size: UInt64, sha256: String?)], mtime: Int64,
                               file: StaticString = #filePath, line: UInt = #line) {
        var at = 0
        for entry in entries {
            let header = TarEncoding.header(path: entry.path, size: entry.size, mtime: mtime)
            guard at + header.count + Int(entry.size) <= archive.count else { return XCTFail("\(entry.path): the archive ends early", file: file, line: line) }
            XCTAssertEqual(Array(archive[at..<(at + header.count)]), header, "header of \(entry.path)", file: file, line: line)
            at += header.count
            if let sha256 = entry.sha256 {
                XCTAssertEqual(SHA256.hexHash(Array(archive[at..<(at + Int(entry.size))])), sha256, entry.path, file: file, line: line)
            }
            at += Int(entry.size)
            let pad = TarEncoding.padding(size: entry.size)
            XCTAssertEqual(Array(archive[at..<(at + pad)]), [UInt8](repeating: 0, count: pad), "padding of \(entry.path)", file: file, line: line)
            at += pad
        }
        XCTAssertEqual(Array(archive[at...]), [UInt8](repeating: 0, count: TarEncoding.trailerBytes), "the trailer, and nothing after it", file: file, line: line)
        XCTAssertEqual(TarEncoding.archiveSize(entries: entries.map { ($0.path, $0.size) }, mtime: mtime), UInt64(archive.count), file: file, line: line)
    }

    private func mtime(_ created: String) throws -> Int64 { Int64(try XCTUnwrap(Timestamp.parse(created)).timeIntervalSince1970) }

    func testTheExamplePacksArchiveIsItsManifestEncodedByteForByte() throws {
        let f = try PublishFixture()
        let result = try f.publish(ExamplePack.root)
        let envelope = [UInt8](try Data(contentsOf: result.manifest))
        let manifest = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(envelope)).payloadBytes(), what: "manifest")
        let archive = [UInt8](try Data(contentsOf: result.archive))
        let entries = [(PublishLayout.archiveManifestEntry, UInt64(envelope.count), Optional(SHA256.hexHash(envelope)))]
            + manifest.archiveEntries.map { ($0.path, $0.file.size, Optional($0.file.sha256)) }
        assertEncoded(archive, entries, mtime: try mtime(manifest.created))
        XCTAssertEqual(result.archiveSize, UInt64(archive.count))
        // The layout PackTrust derives from the manifest alone (what the phone and `packtool verify` hold archives to)
        // is the archive TarWriter wrote: the strict tar reader finds every entry's data where the layout says, and the
        // check passes every byte.
        let layout = try ArchiveLayout(manifest: manifest, manifestBytes: envelope)
        XCTAssertEqual(layout.size, UInt64(archive.count))
        XCTAssertEqual(try StrictTarReader.scan(result.archive).map { "\($0.path) \($0.offset) \($0.size)" }, layout.entries.map { "\($0.path) \($0.dataStart) \($0.size)" })
        let check = ArchiveLayout.Check(layout: layout, manifestBytes: envelope, name: result.archive.path)
        try archive.withUnsafeBytes { try check.append($0) }
        try check.finish()
        XCTAssertEqual(check.verifiedEntries, layout.entries.count)
    }

    /// A delta's entries are its signed document, then the added files in the document's order, at the target
    /// manifest's `created`.
    func testADeltaIsItsDocumentEncodedByteForByteAtTheTargetManifestsTime() throws {
        let f = try PublishFixture()
        let copy = try PackCopy()
        try f.publish(copy.root)
        try copy.edit("stops/04-tron-kirk/story.vtt", replacing: "Tron Kirk.", with: "Tron Kirk, the Tron.")
        try f.resign(copy.stop(3))
        let second = try f.publish(copy.root)
        let manifest = try CanonicalJSON.decode(Manifest.self, from: DSSEEnvelope.parse(Data(contentsOf: second.manifest)).payloadBytes(), what: "manifest")
        XCTAssertFalse(second.deltas.isEmpty)
        for url in second.deltas {
            let archive = [UInt8](try Data(contentsOf: url))
            // The document's own size is the one thing read from the archive: a client has it from the index.
            let first = try XCTUnwrap(StrictTarReader.scan(url).first)
            XCTAssertEqual(first.path, PublishLayout.deltaDocumentEntry)
            let envelope = Array(archive[Int(first.offset)..<Int(first.offset + first.size)])
            let delta = try CanonicalJSON.decode(DeltaDocument.self, from: DSSEEnvelope.parse(Data(envelope)).payloadBytes(), what: "delta")
            let files = Dictionary(delta.files.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
            let entries = [(PublishLayout.deltaDocumentEntry, UInt64(envelope.count), Optional<String>.none)]
                + delta.added.map { ($0, files[$0]!.size, Optional(files[$0]!.sha256)) }
            assertEncoded(archive, entries, mtime: try mtime(manifest.created))
        }
    }
}

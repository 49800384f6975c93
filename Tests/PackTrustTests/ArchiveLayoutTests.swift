import Foundation
import PackCrypto
import PackModel
import PackTrust
import TestSupport
import XCTest

/// The layout a manifest dictates is the archive TarEncoding writes (manifest first, then `archiveEntries` in order,
/// each header, content and zero padding, then the 1024-byte trailer), and `ArchiveLayout.Check` refuses each kind of
/// forged byte with the code the client's streamed install gives it.
final class ArchiveLayoutTests: XCTestCase {
    private static let created = "2026-12-01T10:00:00Z"
    private static let mtime: Int64 = 1_796_119_200

    /// Files of every shape the encoding distinguishes: padded, exactly one block, empty, a non-ASCII path (a pax
    /// header) and a path over 100 bytes.
    private static let contents: [String: [UInt8]] = [
        "pack.json": Array("{}".utf8),
        "stops/01-castle/layers/1824-16x9.heic": (0..<700).map { UInt8(truncatingIfNeeded: $0 &* 13) },
        "stops/01-castle/story.vtt": [UInt8](repeating: 0x41, count: 512),
        "stops/01-castle/chapters.vtt": [],
        "stops/01-castle/caf\u{E9}.vtt": Array("WEBVTT\n".utf8),
        "stops/01-castle/" + String(repeating: "long-", count: 20) + "name.vtt": Array("WEBVTT\n\nlong\n".utf8),
    ]

    private let manifestBytes = Array("{\"payloadType\":\"application/vnd.packtool.manifest+json\",\"payload\":\"e30=\",\"signatures\":[]}".utf8)

    private func manifest(created: String = created) -> Manifest {
        let files = Self.contents.filter { $0.key.hasPrefix("stops/") }.map { path, bytes in
            Manifest.File(path: String(path.dropFirst("stops/01-castle/".count)), size: UInt64(bytes.count), sha256: SHA256.hexHash(bytes), mediaType: "text/vtt")
        }
        let pack = Self.contents["pack.json"]!
        return Manifest(pack: "royal-mile", version: 1, created: created, expires: "2027-01-01T00:00:00Z",
                        access: AccessPolicy(freeStops: ["01-castle"], products: .init(cityPack: .init(productId: "city"), tripPass: nil)),
                        files: [.init(path: "pack.json", size: UInt64(pack.count), sha256: SHA256.hexHash(pack), mediaType: "application/json")],
                        scenes: [.init(id: "01-castle", version: 1, digest: "sha256:" + String(repeating: "0", count: 64), files: files)])
    }

    /// The archive as TarEncoding writes it, entry by entry, for `manifest()`.
    private func encoded() -> [UInt8] {
        var out: [UInt8] = []
        let entries = [(PublishLayout.archiveManifestEntry, manifestBytes)] + manifest().archiveEntries.map { ($0.path, Self.contents[$0.path]!) }
        for (path, bytes) in entries {
            out += TarEncoding.header(path: path, size: UInt64(bytes.count), mtime: Self.mtime) + bytes
            out += [UInt8](repeating: 0, count: TarEncoding.padding(size: UInt64(bytes.count)))
        }
        return out + [UInt8](repeating: 0, count: TarEncoding.trailerBytes)
    }

    /// The code `Check` refuses `archive` with (fed in `piece`-byte pieces), or nil when it passes.
    private func code(_ archive: [UInt8], piece: Int = 4096) throws -> String? {
        let check = ArchiveLayout.Check(layout: try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes), manifestBytes: manifestBytes, name: "t.tar")
        do {
            var at = 0
            while at < archive.count {
                let end = min(archive.count, at + piece)
                try archive[at..<end].withUnsafeBytes { try check.append($0) }
                at = end
            }
            try check.finish()
            return nil
        } catch let failure as VerificationFailure {
            XCTAssertTrue(failure.message.hasPrefix("t.tar: "), failure.message)
            return failure.code
        }
    }

    func testTheLayoutIsWhatTarEncodingWritesInTheManifestsOrder() throws {
        let m = manifest()
        XCTAssertEqual(Timestamp.parse(Self.created).map { Int64($0.timeIntervalSince1970) }, Self.mtime)
        let layout = try ArchiveLayout(manifest: m, manifestBytes: manifestBytes)
        let archive = encoded()
        XCTAssertEqual(layout.size, UInt64(archive.count))
        XCTAssertEqual(layout.size, TarEncoding.archiveSize(entries: [(PublishLayout.archiveManifestEntry, UInt64(manifestBytes.count))] + m.archiveEntries.map { ($0.path, $0.file.size) }, mtime: Self.mtime))
        XCTAssertEqual(layout.entries.map(\.path), [PublishLayout.archiveManifestEntry] + m.archiveEntries.map(\.path))
        XCTAssertTrue(layout.entries.contains { $0.header.count > 512 }, "a pax header is among them")
        for (n, entry) in layout.entries.enumerated() {
            XCTAssertEqual(Array(archive[Int(entry.start)..<Int(entry.dataStart)]), entry.header, entry.path)
            XCTAssertEqual(n == 0 ? nil : entry.sha256, n == 0 ? nil : SHA256.hexHash(archive[Int(entry.dataStart)..<Int(entry.dataEnd)]), entry.path)
            XCTAssertEqual(entry.end % 512, 0, entry.path)
            XCTAssertEqual(layout.offset(afterEntries: n), entry.start)
            if n > 0 { XCTAssertEqual(entry.start, layout.entries[n - 1].end) }
        }
        XCTAssertEqual(layout.offset(afterEntries: layout.entries.count), layout.size - 1024)
    }

    func testTheEncodedArchivePassesInPiecesOfAnySize() throws {
        for piece in [1, 7, 511, 512, 4096, 1 << 20] { XCTAssertNil(try code(encoded(), piece: piece), "pieces of \(piece)") }
    }

    func testAHeaderByteThatDiffersIsArchiveHeader() throws {
        var archive = encoded()
        let layout = try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes)
        archive[Int(layout.entries[2].start) + 140] ^= 0x01  // the mtime field
        XCTAssertEqual(try code(archive), "archive-header")
        XCTAssertEqual(try code(archive, piece: 1), "archive-header")
    }

    func testTheRightFilesInTheWrongOrderAreArchiveHeader() throws {
        let layout = try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes)
        let (a, b) = (layout.entries[1], layout.entries[2])
        var archive = encoded()
        archive.replaceSubrange(Int(a.start)..<Int(b.end), with: archive[Int(b.start)..<Int(b.end)] + archive[Int(a.start)..<Int(a.end)])
        XCTAssertEqual(archive.count, encoded().count)
        XCTAssertEqual(try code(archive), "archive-header")
    }

    func testNonZeroPaddingIsArchiveHeader() throws {
        let layout = try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes)
        let padded = try XCTUnwrap(layout.entries.dropFirst().first { $0.end > $0.dataEnd })
        var archive = encoded()
        archive[Int(padded.end) - 1] = 0x20
        XCTAssertEqual(try code(archive), "archive-header")
    }

    func testChangedContentOfTheSameSizeIsHash() throws {
        let layout = try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes)
        var archive = encoded()
        let last = layout.entries.last!
        archive[Int(last.dataEnd) - 1] ^= 0x01
        XCTAssertEqual(try code(archive), "hash")
        XCTAssertEqual(try code(archive, piece: 3), "hash")
    }

    func testAFirstEntryThatIsNotTheSignedManifestIsMixAndMatch() throws {
        let layout = try ArchiveLayout(manifest: manifest(), manifestBytes: manifestBytes)
        var archive = encoded()
        archive[Int(layout.entries[0].dataStart) + 5] ^= 0x01
        XCTAssertEqual(try code(archive), "mix-and-match")
    }

    func testTheTrailerIsExactlyTwoZeroBlocks() throws {
        var archive = encoded()
        archive[archive.count - 1] = 1
        XCTAssertEqual(try code(archive), "archive-trailer")
        XCTAssertEqual(try code(encoded() + [0]), "archive-trailer", "a longer trailer, even of zero bytes")
        XCTAssertEqual(try code(encoded() + [UInt8](repeating: 0, count: 512)), "archive-trailer")
        XCTAssertEqual(try code(Array(encoded().dropLast(512))), "archive-truncated")
        XCTAssertEqual(try code(Array(encoded().prefix(700))), "archive-truncated")
    }

    func testAManifestWhoseCreatedTimeCannotBeReadOrWhoseSizesOverflowHasNoLayout() {
        XCTAssertThrowsError(try ArchiveLayout(manifest: manifest(created: "yesterday"), manifestBytes: manifestBytes)) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "document")
        }
        var m = manifest()
        m.files[0].size = UInt64.max - 100
        XCTAssertThrowsError(try ArchiveLayout(manifest: m, manifestBytes: manifestBytes)) { XCTAssertEqual(($0 as? VerificationFailure)?.code, "number") }
    }
}

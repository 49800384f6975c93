import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// The same forged archive — the right files in the wrong order, a header byte, padding, a file's content, the
/// trailer — in a signed tree whose index and manifest are left as signed (the index pins the archive's size, which
/// none of these forgeries changes), fed to every reader of an archive: the phone's streamed install (PackVerify's
/// `Updater` over a fetcher that streams, as over HTTP), the same update through a whole-file download, `packtool
/// install` of the archive file, `packtool verify` on the tree and `packtool verify` on the archive alone. Each gets
/// the same code from all five: they all compose one layout (`ArchiveLayout`), so no reader passes an archive another
/// refuses. (The whole-file and local-file installs matched entries by path, and passed the right files in the wrong
/// order and a changed header mtime, until they composed `ArchiveLayout.checkFraming`.)
final class ArchiveLayoutAcrossReadersTests: SignedTreeReadersTestCase {
    /// The codes of the phone, `packtool verify` on the tree and `packtool verify` on the archive, for `archive` in
    /// place of the published one.
    private func codes(_ name: String, _ archive: [UInt8]) throws -> [String?] {
        XCTAssertEqual(archive.count, honest.count, "\(name): the index pins the archive's size, and the forgery keeps it")
        try write(archive, archivePath)
        return [try phoneCode(name), try wholeFileCode(name), try localInstallCode(name), try verifyCode(tree.path),
                try verifyCode(tree.appendingPathComponent(archivePath).path)]
    }

    // MARK: Forging the archive

    /// Where each entry's header starts and its data starts and ends, as a tar reader of the honest archive sees them.
    private func entries() throws -> [(path: String, start: Int, data: Int, size: Int)] {
        let layout = try ArchiveLayout(manifest: manifest, manifestBytes: [UInt8](try Data(contentsOf: tree.appendingPathComponent(PublishLayout.manifest(pack: "royal-mile", version: 1)))))
        return layout.entries.map { ($0.path, Int($0.start), Int($0.dataStart), Int($0.size)) }
    }

    /// The ustar checksum of the 512-byte header at `at`, written again after a field was changed.
    private static func rechecksum(_ bytes: inout [UInt8], header at: Int) {
        for i in 148..<156 { bytes[at + i] = UInt8(ascii: " ") }
        let sum = bytes[at..<(at + 512)].reduce(0) { $0 + Int($1) }
        let text = Array(String(sum, radix: 8).utf8)
        let field = [UInt8](repeating: UInt8(ascii: "0"), count: 6 - text.count) + text + [0, UInt8(ascii: " ")]
        bytes.replaceSubrange((at + 148)..<(at + 156), with: field)
    }

    func testEachForgedArchiveGetsTheSameCodeFromThePhoneAndVerifyOnTheTreeAndTheArchive() throws {
        let list = try entries()
        let byPath = Dictionary(list.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a })
        let heic = byPath["stops/01-castle/layers/1824-16x9.heic"]!, vtt = byPath["stops/01-castle/story.vtt"]!

        // (a) The right files, each with its right header, in the wrong order: the castle's two files swapped.
        var swapped = honest
        let first = Array(honest[heic.start..<vtt.start]), second = Array(honest[vtt.start..<(vtt.data + vtt.size + TarEncoding.padding(size: UInt64(vtt.size)))])
        swapped.replaceSubrange(heic.start..<(heic.start + first.count + second.count), with: second + first)
        XCTAssertNotEqual(swapped, honest)

        // (b) pack.json's header with another mtime (one second later), its checksum made valid again.
        var mtime = honest
        let pack = byPath["pack.json"]!
        let field = (pack.start + 136)..<(pack.start + 147)
        let later = Int(String(decoding: honest[field], as: UTF8.self), radix: 8)! + 1
        let digits = Array(String(later, radix: 8).utf8)
        mtime.replaceSubrange(field, with: [UInt8](repeating: UInt8(ascii: "0"), count: 11 - digits.count) + digits)
        Self.rechecksum(&mtime, header: pack.start)
        XCTAssertNotEqual(mtime, honest)

        // (c) A non-zero byte in the padding after the plate (700 bytes: 324 bytes of padding).
        var padding = honest
        padding[heic.data + heic.size + 10] = 0x20

        // (d) One byte of the plate changed, same size.
        var content = honest
        content[heic.data + 350] ^= 0x01

        // (e) A non-zero byte in the trailer.
        var trailer = honest
        trailer[honest.count - 100] = 1

        // (f) A header's size field changed (a file said to be shorter), checksum made valid again.
        var size = honest
        size[heic.start + 134] = UInt8(ascii: "0")  // 0o1274 (700) becomes 0o1270 (696)
        Self.rechecksum(&size, header: heic.start)

        let cases: [(String, [UInt8], String)] = [
            ("wrong-order", swapped, "archive-header"),
            ("header-mtime", mtime, "archive-header"),
            ("padding", padding, "archive-header"),
            ("content", content, "hash"),
            ("trailer", trailer, "archive-trailer"),
            ("header-size", size, "archive-header"),
        ]
        for (name, archive, expected) in cases {
            XCTAssertEqual(try codes(name, archive), Array(repeating: expected, count: 5),
                           "\(name): the phone streaming, a whole-file download, packtool install of the file, packtool verify on the tree, on the archive")
        }
    }

    /// The harness itself: the archive as the publisher wrote it is installed by the phone and verified by both.
    func testTheHonestArchiveIsAcceptedByThePhoneAndVerifyOnTheTreeAndTheArchive() throws {
        XCTAssertEqual(try codes("honest", honest), Array(repeating: nil, count: 5))
    }

    /// An archive that holds the right bytes but a different SHA-256 from the index's cannot exist; an index that names
    /// another SHA-256 for the honest archive is the index's mistake, which `verify` on the tree still reports.
    func testVerifyOnTheTreeStillHoldsTheArchiveToTheIndexsSHA256() throws {
        var index = try CanonicalJSON.decode(IndexDocument.self, from: DSSEEnvelope.parse(Data(contentsOf: tree.appendingPathComponent(PublishLayout.index))).payloadBytes(), what: "index")
        index.packs["royal-mile"]!.archive.sha256 = String(repeating: "0", count: 64)
        try write(try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(index), as: DocumentKind.index.payloadType, with: [indexKey])), PublishLayout.index)
        XCTAssertEqual(try verifyCode(tree.path), "hash")
    }
}

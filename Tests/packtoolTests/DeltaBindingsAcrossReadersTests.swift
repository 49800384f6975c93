import Foundation
import PackArchive
import PackCrypto
import PackModel
import PackSigning
import PackTrust
import PackVerify
import TestSupport
import XCTest

/// A delta's bindings — the scene it leads to, and its entries (exactly its added files, at their signed sizes and
/// hashes) — forged in validly signed deltas, so only the binding can refuse them: each gets the same code from the
/// phone's hot update (which installed version 1 and now updates to version 2 by its deltas) and from `packtool verify`
/// on the tree (both compose PackTrust's `DeltaBinding`), and the honest tree passes both. (A delta leading elsewhere
/// passed `verify`; an entry that was not an added file was `delta` there and `delta-entry` on a phone.) Where a delta
/// starts is judged by a phone against its installed scene (`DeltaBindingTests`) and by `verify` against the earlier
/// release in the tree that listed that version (`evaluate(startsFromEarlier:)`).
final class DeltaBindingsAcrossReadersTests: SignedTreeReadersTestCase {
    private var v2: Manifest!
    private var v2Bytes: [UInt8] = []
    private let newStory = Array(("WEBVTT\n\n" + String(repeating: "The Castle Esplanade, revised. ", count: 25)).utf8)
    private var pristine: String { dir + "/pristine" }

    override func setUpWithError() throws {
        try super.setUpWithError()
        // The phone installs version 1 from the tree as it stands.
        try Trust(state: URL(fileURLWithPath: pristine + "/state")).pin(rootFile: URL(fileURLWithPath: rootFile))
        _ = try Updater(state: URL(fileURLWithPath: pristine + "/state"), into: URL(fileURLWithPath: pristine + "/app"), fetcher: FileFetcher(base: tree)).update(pack: "royal-mile")
        try publishVersion2()
        try publishDeltas { _ in }
    }

    /// Version 2 changes the castle's story: scene 01-castle version 2, published with its archive and index (the
    /// deltas are `publishDeltas`'); `alter` changes the manifest first.
    private func publishVersion2(_ alter: (inout Manifest) -> Void = { _ in }) throws {
        v2 = manifest
        v2.version = 2
        v2.scenes[0].version = 2
        v2.scenes[0].digest = "sha256:" + String(repeating: "3", count: 64)
        let storyIndex = v2.scenes[0].files.firstIndex { $0.path == "story.vtt" }!
        v2.scenes[0].files[storyIndex] = Manifest.File(path: "story.vtt", size: UInt64(newStory.count), sha256: SHA256.hexHash(newStory), mediaType: "text/vtt")
        alter(&v2)
        v2Bytes = try signed(v2, .manifest)
        try write(v2Bytes, PublishLayout.manifest(pack: "royal-mile", version: 2))
        var contents = Self.contents
        contents["stops/01-castle/story.vtt"] = newStory
        let archive = try tar(mtime: v2.created, entries: [(PublishLayout.archiveManifestEntry, v2Bytes)] + v2.archiveEntries.map { ($0.path, contents[$0.path]!) })
        try write(archive, PublishLayout.archive(pack: "royal-mile", version: 2))
        let now = Date()
        let index = IndexDocument(version: 2, created: Timestamp.format(now.addingTimeInterval(-30)), expires: Timestamp.format(now.addingTimeInterval(86_400)), rootVersion: 1, packs: [
            "royal-mile": .init(version: 2,
                                manifest: .init(path: PublishLayout.manifest(pack: "royal-mile", version: 2), size: UInt64(v2Bytes.count), sha256: SHA256.hexHash(v2Bytes)),
                                archive: .init(path: PublishLayout.archive(pack: "royal-mile", version: 2), size: UInt64(archive.count), sha256: SHA256.hexHash(archive))),
        ])
        try write(try signed(index, .index), PublishLayout.index)
    }

    private func signed<T: Encodable>(_ value: T, _ kind: DocumentKind) throws -> [UInt8] {
        let key: Ed25519PrivateKey = kind.role == RootDocument.Role.index ? indexKey : manifestKey
        return try CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(value), as: kind.payloadType, with: [key]))
    }

    private func tar(mtime: String, entries: [(String, [UInt8])]) throws -> [UInt8] {
        let path = dir + "/building-\(UUID().uuidString).tar"
        let writer = try TarWriter(path: path, mtime: Int64(Timestamp.parse(mtime)!.timeIntervalSince1970))
        for (name, bytes) in entries { try writer.add(name, bytes: bytes) }
        try writer.finish()
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The castle's two deltas to version 2 (from version 1, and the self-contained one from version 0), each document
    /// and entry list first passed through `forge`; validly signed by the manifest key whatever `forge` did.
    private func publishDeltas(forge: (inout (document: DeltaDocument, entries: [(String, [UInt8])])) -> Void,
                               framing: ([UInt8]) -> [UInt8] = { $0 }) throws {
        let scene = v2.scenes[0], old = manifest.scenes[0]
        for from in [DeltaDocument.SceneState(version: 1, digest: old.digest), DeltaDocument.SceneState(version: 0, digest: "")] {
            let document = DeltaDocument.between(pack: "royal-mile", scene: scene.id, from: from, fromFiles: from.version == 0 ? [] : old.files,
                                                 to: .init(version: scene.version, digest: scene.digest), toFiles: scene.files)
            var delta = (document: document, entries: document.added.map { path in
                (path, path == "story.vtt" ? newStory : Self.contents["stops/01-castle/" + path]!)
            })
            forge(&delta)
            let bytes = framing(try tar(mtime: v2.created, entries: [(PublishLayout.deltaDocumentEntry, try signed(delta.document, .delta))] + delta.entries))
            try write(bytes, PublishLayout.delta(pack: "royal-mile", scene: scene.id, from: from.version, to: scene.version))
        }
    }

    /// The codes of the phone's hot update from version 1 and of `packtool verify` on the tree.
    private func codes(_ name: String) throws -> [String?] {
        let state = dir + "/state-\(name)", app = dir + "/app-\(name)"
        try FileManager.default.copyItem(atPath: pristine + "/state", toPath: state)
        try FileManager.default.copyItem(atPath: pristine + "/app", toPath: app)
        var phone: String?
        do {
            let result = try Updater(state: URL(fileURLWithPath: state), into: URL(fileURLWithPath: app), fetcher: FileFetcher(base: tree)).update(pack: "royal-mile")
            XCTAssertEqual(result.toVersion, 2, name)
        } catch {
            phone = (error as? VerificationFailure)?.code ?? "\(error)"
            let installed = try InstalledPack(state: URL(fileURLWithPath: state)).verify(into: URL(fileURLWithPath: app), pack: "royal-mile")
            XCTAssertEqual(installed.version, 1, "\(name): a refused update leaves version 1")
        }
        return [phone, try verifyCode(tree.path)]
    }

    func testTheHonestDeltasAreAcceptedByBoth() throws {
        XCTAssertEqual(try codes("honest"), [nil, nil])
    }

    func testADeltaLeadingToAnotherVersionOfTheSceneIsRefusedByBoth() throws {
        try publishDeltas { $0.document.to.digest = "sha256:" + String(repeating: "4", count: 64) }
        XCTAssertEqual(try codes("elsewhere"), ["delta-target", "delta-target"])
    }

    func testADeltaCarryingAFileItDoesNotAddIsRefusedByBoth() throws {
        try publishDeltas { $0.entries.append(("layers/planted.heic", [1, 2, 3])) }
        XCTAssertEqual(try codes("extra-entry"), ["delta-entry", "delta-entry"])
    }

    func testADeltaLackingAnAddedFileIsRefusedByBoth() throws {
        try publishDeltas { $0.entries.removeAll() }
        XCTAssertEqual(try codes("missing-entry"), ["delta-entry", "delta-entry"])
    }

    /// The review's case: a version-0 delta that leaves a file out passed `verify`. A phone takes it when the delta
    /// from its installed version is not there, refuses it (`delta-base`) and falls back to the whole archive, so
    /// its update still lands; `verify` now refuses the tree with the same code.
    func testAVersionZeroDeltaLeavingAFileOutIsRefusedByBoth() throws {
        try publishDeltas { delta in
            guard delta.document.from.version == 0 else { return }
            delta.document.added.removeAll { $0 == "story.vtt" }
            delta.entries.removeAll { $0.0 == "story.vtt" }
        }
        try FileManager.default.removeItem(at: tree.appendingPathComponent(PublishLayout.delta(pack: "royal-mile", scene: "01-castle", from: 1, to: 2)))
        try FileManager.default.copyItem(atPath: pristine + "/state", toPath: dir + "/state-zero")
        try FileManager.default.copyItem(atPath: pristine + "/app", toPath: dir + "/app-zero")
        let result = try Updater(state: URL(fileURLWithPath: dir + "/state-zero"), into: URL(fileURLWithPath: dir + "/app-zero"), fetcher: FileFetcher(base: tree)).update(pack: "royal-mile")
        XCTAssertEqual(result.method, "full archive")
        XCTAssertTrue(result.fallbacks.contains { $0.contains("starts from nothing but does not carry story.vtt") }, "\(result.fallbacks)")
        XCTAssertEqual(try verifyCode(tree.path), "delta-base")
    }

    /// The attack's gap: `verify` judged where a delta leads and what it carries, not where it starts, so a tree whose
    /// delta from version 1 starts from another scene (or keeps a file version 1 never had) passed while every phone on
    /// version 1 was refused it. Version 1's manifest is in the tree: `verify` now holds the delta to it.
    func testADeltaStartingFromAnotherSceneThanTheEarlierReleaseListedIsRefusedByVerifyAsByThePhone() throws {
        try publishDeltas { delta in
            guard delta.document.from.version == 1 else { return }
            delta.document.from.digest = "sha256:" + String(repeating: "5", count: 64)
        }
        // The phone refuses the delta from version 1 (`delta-base` against its installed scene) and updates by the
        // version-0 delta instead, as it did; `verify` now refuses the tree with the phone's code.
        XCTAssertEqual(try codes("other-base"), [nil, "delta-base"])
    }

    func testADeltaKeepingAFileTheEarlierVersionNeverHadIsRefusedByVerify() throws {
        // The new story claimed as kept from version 1, so the delta does not carry it: a phone on version 1 holds the
        // old story and cannot make version 2 from this delta.
        try publishDeltas { delta in
            guard delta.document.from.version == 1 else { return }
            delta.document.added.removeAll { $0 == "story.vtt" }
            delta.entries.removeAll { $0.0 == "story.vtt" }
        }
        XCTAssertEqual(try verifyCode(tree.path), "delta-base")
    }

    func testADeltaRemovingLessThanTheEarlierVersionLeavesOutIsRefusedByVerify() throws {
        try publishDeltas { delta in
            guard delta.document.from.version == 1 else { return }
            delta.document.removed = ["layers/never-there.heic"]
        }
        XCTAssertEqual(try verifyCode(tree.path), "delta-base")
    }

    /// One scene version with two contents across the releases (what sign did to a stop dropped and added back): a
    /// phone holding the first cannot tell it from the second, and every delta from that version is ambiguous.
    func testASceneVersionWithTwoContentsAcrossTheReleasesIsRefusedByVerify() throws {
        try publishVersion2 { $0.scenes[1].digest = "sha256:" + String(repeating: "6", count: 64) }
        try publishDeltas { _ in }
        XCTAssertEqual(try verifyCode(tree.path), "delta-base")
        let r = try CLI.run(["verify", tree.path, "--root", rootFile])
        XCTAssertTrue(r.stderr.contains("version 1 has other content than an earlier release"), r.stderr)
    }

    /// A changed scene with no version-0 delta: a phone on version 1 still updates by its own delta, but one on any
    /// version without a delta, or whose delta fails, has nothing to fall back on but the whole archive. `verify`
    /// names it with the phone's code for a changed scene without a usable delta.
    func testAChangedSceneWithoutItsVersionZeroDeltaIsNamedByVerify() throws {
        let zero = tree.appendingPathComponent(PublishLayout.delta(pack: "royal-mile", scene: "01-castle", from: 0, to: 2))
        try FileManager.default.removeItem(at: zero)
        XCTAssertEqual(try codes("no-zero"), [nil, "delta-missing"])
    }

    func testADeltaWhoseAddedFileHasOtherBytesIsRefusedByBoth() throws {
        try publishDeltas { delta in delta.entries = delta.entries.map { ($0.0, $0.0 == "story.vtt" ? $0.1.map { $0 ^ 1 } : $0.1) } }
        XCTAssertEqual(try codes("other-bytes"), ["hash", "hash"])
    }

    // MARK: The tar itself: one reader for both

    /// The delta's second entry (its first added file) with header type '7' (a contiguous file, which libarchive, the
    /// reader `verify` used for deltas, reads as a regular file) and the checksum made valid again.
    private static func contiguousFileEntry(_ bytes: [UInt8]) -> [UInt8] {
        var out = bytes
        let documentSize = Int(String(decoding: bytes[124..<135], as: UTF8.self), radix: 8)!
        let second = 512 + (documentSize + 511) / 512 * 512
        out[second + 156] = UInt8(ascii: "7")
        for i in 148..<156 { out[second + i] = UInt8(ascii: " ") }
        let sum = out[second..<(second + 512)].reduce(0) { $0 + Int($1) }
        let text = Array(String(sum, radix: 8).utf8)
        out.replaceSubrange((second + 148)..<(second + 156), with: [UInt8](repeating: UInt8(ascii: "0"), count: 6 - text.count) + text + [0, UInt8(ascii: " ")])
        return out
    }

    /// Framing a phone refuses, in validly signed deltas whose files are right: `verify` read deltas through
    /// libarchive, which took both (it stops at the end-of-archive marker and reads type '7' as a file), so a tree a
    /// phone cannot update from passed. Both now read deltas through PackTrust's `DeltaArchive`.
    func testADeltaWithBytesAfterItsEndIsRefusedByBoth() throws {
        try publishDeltas(forge: { _ in }, framing: { $0 + [UInt8](repeating: 0x41, count: 512) })
        XCTAssertEqual(try codes("after-the-end"), ["archive-trailer", "archive-trailer"])
    }

    func testADeltaWithAnEntryOfAnotherTypeIsRefusedByBoth() throws {
        try publishDeltas(forge: { _ in }, framing: Self.contiguousFileEntry)
        XCTAssertEqual(try codes("contiguous-file"), ["archive-type", "archive-type"])
    }

    /// A link in a delta's place (to the genuine version-0 delta beside it): no phone follows it, and `verify` names
    /// it as a link rather than judging what it points to (it reported a name mismatch of the target).
    func testALinkInADeltasPlaceIsNamedAsOneByVerify() throws {
        let one = tree.appendingPathComponent(PublishLayout.delta(pack: "royal-mile", scene: "01-castle", from: 1, to: 2))
        try FileManager.default.removeItem(at: one)
        try FileManager.default.createSymbolicLink(atPath: one.path, withDestinationPath: "0-2.tar")
        let codes = try codes("linked-delta")
        XCTAssertEqual(codes[1], "not-a-file")
        XCTAssertNil(codes[0], "the phone, which refuses the link, updates by the version-0 delta")
    }

    /// Zero blocks after the end marker are allowed (they are the trailer's own padding), up to the cap a phone
    /// downloads a delta within: past it both refuse (`verify` passed 20 MiB of them and every phone stopped).
    func testADeltaOverThePhonesDownloadCapIsRefusedByBoth() throws {
        try publishDeltas(forge: { _ in }, framing: { $0 + [UInt8](repeating: 0, count: 17 << 20) })
        XCTAssertEqual(try codes("over-the-cap"), ["fetch-size", "fetch-size"])
    }

    /// `packtool verify` on a delta archive alone verifies it as a delta (it answered that the first entry is not
    /// manifest.json): the honest one passes, one with bytes after its end is refused as a phone refuses it.
    func testVerifyOnADeltaAloneJudgesItAsADelta() throws {
        let one = tree.appendingPathComponent(PublishLayout.delta(pack: "royal-mile", scene: "01-castle", from: 1, to: 2)).path
        XCTAssertNil(try verifyCode(one))
        try publishDeltas(forge: { _ in }, framing: { $0 + [UInt8](repeating: 0x41, count: 512) })
        XCTAssertEqual(try verifyCode(one), "archive-trailer")
    }
}

import Foundation
import PackCrypto
import PackModel
import PackSigning
import TestSupport
import XCTest

/// The outside attack on issue 41's drills (December 2026), each finding as the attacker ran it: a thief holding a
/// stolen key writes into the tree, and the documented one-step drill must still leave every phone updating; an older
/// genuine index put back and renewed on a fresh runner must not lock phones out; a rotation that cannot finish must
/// publish nothing. Every test here failed on the binary the attacker was given.
final class StolenKeyDrillTests: XCTestCase {
    private var dir = "", keys = "", state = "", cdn = "", app = ""
    /// An access code issued and then revoked.
    private var code = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        state = dir + "/state"
        cdn = dir + "/cdn"
        app = dir + "/app"
    }

    @discardableResult
    private func run(_ args: [String], expect status: Int32 = 0, file: StaticString = #filePath, line: UInt = #line) throws -> CLI.Result {
        let r = try CLI.run(args, environment: ["XDG_STATE_HOME": dir + "/xdg"])
        XCTAssertEqual(r.status, status, "packtool \(args.joined(separator: " "))\n\(r.stdout)\(r.stderr)", file: file, line: line)
        return r
    }

    /// Keys, a root, the example pack published, a code revoked and bound, and a phone that updated.
    private func publishedWithARevocationAndAPhone() throws {
        for role in ["root", "manifest", "index", "grant"] { try run(["key", "generate", "--role", role, "--out", keys, "--unencrypted"]) }
        try run(["root", "init", "--state", state, "--root-key", keys + "/root.pem", "--manifest-pub", keys + "/manifest.pub",
                 "--index-pub", keys + "/index.pub", "--grant-pub", keys + "/grant.pub"])
        try run(["sign", ExamplePack.root.path, "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        let issued = try run(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", "uk.example.walks.royalmile.citypack",
                              "--not-before", "2026-01-01", "--not-after", "2036-01-01", "--state", state, "--format", "json"])
        let grant = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(issued.stdout.utf8)) as? [String: Any])
        code = try XCTUnwrap(grant["code"] as? String)
        try run(["grant", "revoke", try XCTUnwrap(grant["id"] as? String), "--reason", "lost", "--state", state, "--grant-key", keys + "/grant.pem"])
        try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--state", state])
        try phoneUpdates()
    }

    /// A phone (root 1 pinned) updates from the tree; and a brand-new phone installs it.
    private func phoneUpdates(file: StaticString = #filePath, line: UInt = #line) throws {
        try run(["update", "--tree", cdn, "--into", app, "--pack", "royal-mile", "--root", state + "/root/1.root.json", "--quiet"], file: file, line: line)
        let fresh = dir + "/fresh-\(UUID().uuidString.prefix(8))"
        try run(["update", "--tree", cdn, "--into", fresh, "--pack", "royal-mile", "--root", state + "/root/1.root.json", "--quiet"], file: file, line: line)
    }

    /// What a thief holding `key` signs: a document of `type` with `payload`, written to `path` in the tree.
    private func forge(_ payload: Data, as type: String, key: String, to path: String) throws {
        let signer = try KeyFile.loadPrivateKey(at: keys + "/" + key)
        let url = URL(fileURLWithPath: cdn + "/" + path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try DSSEEnvelope(signing: Array(payload), as: type, with: [signer]).jsonData().write(to: url)
    }

    /// The payload of a signed file in the tree, as a JSON object to edit.
    private func payload(of path: String) throws -> [String: Any] {
        let envelope = try DSSEEnvelope.parse(try Data(contentsOf: URL(fileURLWithPath: cdn + "/" + path)))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try envelope.payloadBytes())) as? [String: Any])
    }

    private func json(_ object: [String: Any]) throws -> Data { try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) }

    // MARK: - A stolen grant or manifest key (F1)

    func testAThiefsRevocationListUnderTheStolenGrantKeyNeverBlocksTheDrillThatRetiresTheKey() throws {
        try publishedWithARevocationAndAPhone()
        // The thief: list version 999 with nothing revoked, and the next names taken, all under the stolen key.
        var list = try payload(of: "revocations/1.json")
        for version in [999, 2, 3] {
            list["version"] = version
            list["revoked"] = [Any]()
            try forge(try json(list), as: PayloadType.revocations, key: "grant.pem", to: "revocations/\(version).json")
        }
        // Before the drill the scheduled renew refuses to keep the index below the thief's list, and says what to do.
        let cron = try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--wait", "0"], expect: 2)
        XCTAssertTrue(cron.stderr.contains("revocations/999.json") && cron.stderr.contains("someone else holds the key that signed it"), cron.stderr)
        // The drill, in one step: nothing of the retired key's counts any more, and the names it took are skipped.
        try run(["key", "generate", "--role", "grant", "--out", keys, "--name", "grant-2", "--unencrypted"])
        let started = Date()
        let drill = try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--grant-key", keys + "/grant-2.pem",
                             "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertLessThan(Date().timeIntervalSince(started), 120, "no wait for a release that does not exist")
        XCTAssertTrue(drill.stdout.contains("as version 1000 under the new grant key"), drill.stdout)
        try phoneUpdates()
        let access = try CLI.run(["access", "--into", app, "--pack", "royal-mile", "--scene", "04-tron-kirk", "--code", code, "--format", "json"])
        let decision = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(access.stdout.utf8)) as? [String: Any], access.stderr)
        XCTAssertEqual(decision["allowed"] as? Bool, false, "the revoked code stays revoked: \(access.stdout)")
        XCTAssertEqual(try run(["status", "--state", state, "--tree", cdn]).status, 0)
    }

    func testAThiefsManifestUnderTheStolenManifestKeyNeverBlocksTheDrillThatRetiresTheKey() throws {
        try publishedWithARevocationAndAPhone()
        var manifest = try payload(of: "packs/royal-mile/1/manifest.json")
        for version in [999, 2] {
            manifest["version"] = version
            try forge(try json(manifest), as: PayloadType.manifest, key: "manifest.pem", to: "packs/royal-mile/\(version)/manifest.json")
        }
        try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--wait", "0"], expect: 2)
        try run(["key", "generate", "--role", "manifest", "--out", keys, "--name", "manifest-2", "--unencrypted"])
        let drill = try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--manifest-key", keys + "/manifest-2.pem",
                             "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertTrue(drill.stdout.contains("as version 1000"), "numbered above every name the tree holds: \(drill.stdout)")
        try phoneUpdates()
        XCTAssertEqual(try run(["status", "--state", state, "--tree", cdn]).status, 0)
    }

    // MARK: - A stolen index key (F2)

    func testAnIndexAtTheHighestVersionThereIsIsNamedAsATheftAndTheIndexDrillRepairsIt() throws {
        try publishedWithARevocationAndAPhone()
        var index = try payload(of: "index.json")
        index["version"] = Int.max
        try forge(try json(index), as: PayloadType.index, key: "index.pem", to: "index.json")
        let cron = try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"], expect: 2)
        XCTAssertTrue(cron.stderr.contains("the highest there is") && cron.stderr.contains("--index-key NEW-INDEX.pem"), cron.stderr)
        try run(["key", "generate", "--role", "index", "--out", keys, "--name", "index-2", "--unencrypted"])
        try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--index-key", keys + "/index-2.pem", "--publish", cdn])
        try phoneUpdates()
        // And the next day's scheduled renew with the new key goes on as usual.
        try run(["renew", "--index-key", keys + "/index-2.pem", "--publish", cdn, "--force"])
        try phoneUpdates()
    }

    // MARK: - An older index put back, renewed where nothing is remembered (F3)

    func testAnOlderIndexPutBackAndRenewedOnAFreshRunnerIsStillAboveWhatPhonesHaveSeen() throws {
        try publishedWithARevocationAndAPhone()
        let old = try Data(contentsOf: URL(fileURLWithPath: cdn + "/index.json"))
        for _ in 1...3 { try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"]) }
        try phoneUpdates()
        // Index versions count the clock's seconds (× 1000, and up by one within a second): the runner's renew comes
        // in a later second than the ones phones saw, as any scheduled one does. (Within that same second a renew that
        // remembers nothing numbers below them; on a fast machine this test once ran it there.)
        let seen = Int(Date().timeIntervalSince1970)
        while Int(Date().timeIntervalSince1970) == seen { usleep(20_000) }
        try old.write(to: URL(fileURLWithPath: cdn + "/index.json"))
        // A CI runner: a new HOME every time, so no memory of the tree. (The attacker put back an index days old, which
        // any renew signs again; this one is minutes old, which only --force re-signs within the hour.)
        let fresh = try CLI.run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"], environment: ["XDG_STATE_HOME": dir + "/runner-\(UUID().uuidString)"])
        XCTAssertNotEqual(fresh.status, 2, fresh.stderr)
        try phoneUpdates()
    }

    func testAnExportFromTheStateAfterScheduledRenewalsIsAboveWhatPhonesHaveSeen() throws {
        try publishedWithARevocationAndAPhone()
        for _ in 1...3 { try run(["renew", "--index-key", keys + "/index.pem", "--publish", cdn, "--force"]) }
        try phoneUpdates()
        // The host is lost; the documented recovery exports the whole tree from the state, whose ledger saw none of those renewals.
        try FileManager.default.moveItem(atPath: cdn, toPath: dir + "/lost")
        try run(["export", "--state", state, "--manifest-key", keys + "/manifest.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        try phoneUpdates()
    }

    // MARK: - A rotation that cannot finish publishes nothing (F5, F6)

    func testARenewInTheMiddleOfATwoStepGrantRotationPublishesNoRootAndEveryPhoneKeepsUpdating() throws {
        try publishedWithARevocationAndAPhone()
        try run(["key", "generate", "--role", "grant", "--out", keys, "--name", "grant-2", "--unencrypted"])
        try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--grant-pub", keys + "/grant-2.pub", "--publish", cdn], expect: 1)
        let renew = try run(["renew", "--state", state, "--index-key", keys + "/index.pem", "--publish", cdn], expect: 2)
        XCTAssertTrue(renew.stderr.contains("grant resign"), renew.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cdn + "/root/2.root.json"), "no root without an index phones admit under it")
        try phoneUpdates()
    }

    func testARenewInTheMiddleOfATwoStepManifestRotationPublishesNoRootAndEveryPhoneKeepsUpdating() throws {
        try publishedWithARevocationAndAPhone()
        try run(["key", "generate", "--role", "manifest", "--out", keys, "--name", "manifest-2", "--unencrypted"])
        try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--manifest-pub", keys + "/manifest-2.pub", "--publish", cdn], expect: 1)
        let renew = try run(["renew", "--state", state, "--index-key", keys + "/index.pem", "--publish", cdn, "--force"], expect: 2)
        XCTAssertTrue(renew.stderr.contains("--manifest-key NEW-MANIFEST.pem"), renew.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cdn + "/root/2.root.json"))
        try phoneUpdates()
        // The command the refusal names finishes the drill: every pack re-released, then one index beside the root.
        let finish = try run(["renew", "--state", state, "--manifest-key", keys + "/manifest-2.pem", "--index-key", keys + "/index.pem", "--publish", cdn])
        XCTAssertTrue(finish.stdout.contains("re-released royal-mile version 1") && finish.stdout.contains("root/2.root.json"), finish.stdout)
        try phoneUpdates()
        XCTAssertEqual(try run(["status", "--state", state, "--tree", cdn]).status, 0)
    }

    func testARootKeyRotationAloneLeavesStatusAllWell() throws {
        try publishedWithARevocationAndAPhone()
        try run(["key", "generate", "--role", "root", "--out", keys, "--name", "root-2", "--unencrypted"])
        try run(["root", "rotate", "--state", state, "--sign-with", keys + "/root.pem", "--root-key", keys + "/root-2.pem", "--publish", cdn])
        XCTAssertTrue(FileManager.default.fileExists(atPath: cdn + "/root/2.root.json"))
        let status = try run(["status", "--state", state, "--tree", cdn])
        XCTAssertTrue(status.stdout.contains("all well"), status.stdout)
        try phoneUpdates()
    }

    // MARK: - status holds archives to their hash with --deep (F7)

    func testStatusDeepFindsAnArchiveWithOneByteChangedThatTheDailyCheckOnlySizes() throws {
        try publishedWithARevocationAndAPhone()
        let archive = cdn + "/packs/royal-mile/1/royal-mile-1.tar"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
        bytes[bytes.count / 2] ^= 1
        try FileManager.default.removeItem(atPath: archive)   // the state keeps a hard link to the same file
        try bytes.write(to: URL(fileURLWithPath: archive))
        let daily = try run(["status", "--state", state, "--tree", cdn])
        XCTAssertTrue(daily.stdout.contains("archives checked by size; --deep reads them"), daily.stdout)
        let deep = try run(["status", "--state", state, "--tree", cdn, "--deep"], expect: 2)
        XCTAssertTrue(deep.stdout.contains("royal-mile-1.tar") && deep.stdout.contains("installs of royal-mile fail"), deep.stdout)
    }

    /// The outside attack on issue 43: an index re-signed (with the index key) over an archive whose manifest entry's
    /// header has another mtime — the SHA-256 the index signs is the archive's, and every phone refuses its bytes
    /// (`archive-header`). `status --deep` held only the hash and said all well; it now reads the archive as a phone.
    func testStatusDeepHoldsTheArchiveToItsLayoutNotOnlyToTheHashTheIndexSigns() throws {
        try publishedWithARevocationAndAPhone()
        let archive = cdn + "/packs/royal-mile/1/royal-mile-1.tar"
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: archive)))
        // The first header's mtime field, one second later, and its checksum made valid again.
        let mtime = Int(String(decoding: bytes[136..<147], as: UTF8.self), radix: 8)! + 1
        let digits = Array(String(mtime, radix: 8).utf8)
        bytes.replaceSubrange(136..<147, with: [UInt8](repeating: UInt8(ascii: "0"), count: 11 - digits.count) + digits)
        for i in 148..<156 { bytes[i] = UInt8(ascii: " ") }
        let sum = Array(String(bytes[0..<512].reduce(0) { $0 + Int($1) }, radix: 8).utf8)
        bytes.replaceSubrange(148..<156, with: [UInt8](repeating: UInt8(ascii: "0"), count: 6 - sum.count) + sum + [0, UInt8(ascii: " ")])
        try FileManager.default.removeItem(atPath: archive)
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        let indexFile = URL(fileURLWithPath: cdn + "/index.json")
        var index = try CanonicalJSON.decode(IndexDocument.self, from: DSSEEnvelope.parse(Data(contentsOf: indexFile)).payloadBytes(), what: "index")
        index.packs["royal-mile"]!.archive.sha256 = SHA256.hexHash(bytes)
        let key = try KeyFile.loadPrivateKey(at: keys + "/index.pem")
        try Data(CanonicalJSON.encode(try DSSEEnvelope(signing: CanonicalJSON.encode(index), as: PayloadType.index, with: [key]))).write(to: indexFile)
        let deep = try run(["status", "--state", state, "--tree", cdn, "--deep"], expect: 2)
        XCTAssertTrue(deep.stdout.contains("archive-header") && deep.stdout.contains("installs of royal-mile fail"), deep.stdout)
        XCTAssertFalse(deep.stdout.contains("all well"), deep.stdout)
    }

    // MARK: - Grant ids are whole (F8)

    func testAPartOfAGrantIdIsNeverWrittenToTheListNorTakenByAccess() throws {
        try publishedWithARevocationAndAPhone()
        let short = try run(["grant", "revoke", "E0E7", "--unknown-id", "--reason", "x", "--state", state, "--grant-key", keys + "/grant.pem"], expect: 2)
        XCTAssertTrue(short.stderr.contains("a whole grant id has 8"), short.stderr)
        try run(["grant", "revoke", "e0e7f12500", "--unknown-id", "--reason", "x", "--state", state, "--grant-key", keys + "/grant.pem"], expect: 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + "/revocations/2.json"), "nothing signed")
        let access = try run(["access", "--into", app, "--pack", "royal-mile", "--scene", "04-tron-kirk", "--revoked", "e0e7"], expect: 2)
        XCTAssertTrue(access.stderr.contains("--revoked e0e7"), access.stderr)
    }
}

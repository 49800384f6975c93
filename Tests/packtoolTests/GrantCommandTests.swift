import Foundation
import PackModel
import TestSupport
import XCTest

/// `packtool grant issue`: short codes people can type, the checks made before signing, and QR codes a reader decodes.
final class GrantCommandTests: XCTestCase {
    private static let cityPack = "uk.example.walks.royalmile.citypack"
    private static let tripPass = "uk.example.walks.trippass72"
    private var dir = "", keys = ""

    override func setUpWithError() throws {
        dir = try temporaryDirectory()
        keys = dir + "/keys"
        XCTAssertEqual(try CLI.run(["key", "generate", "--role", "grant", "--out", keys, "--unencrypted"]).status, 0)
    }

    private func issue(_ extra: [String], products: String = cityPack, from: String = "2026-12-01", until: String = "2026-12-08") throws -> CLI.Result {
        try CLI.run(["grant", "issue", "--grant-key", keys + "/grant.pem", "--products", products, "--not-before", from, "--not-after", until] + extra)
    }

    func testAProductThePackDoesNotSellIsRefusedNamingThePacksProducts() throws {
        let r = try issue(["--pack-dir", ExamplePack.root.path], products: "uk.example.walks.royalmile.citypak")
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "", "no code is printed")
        XCTAssertTrue(r.stderr.contains("does not sell \"uk.example.walks.royalmile.citypak\"; did you mean \(Self.cityPack) (City Pack) or \(Self.tripPass) (Trip Pass)?"),
                      r.stderr)
        let checked = try issue(["--pack-dir", ExamplePack.root.path])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertFalse(checked.stderr.contains("products were not checked"), checked.stderr)
        let unchecked = try issue([])
        XCTAssertEqual(unchecked.status, 0, unchecked.stderr)
        XCTAssertTrue(unchecked.stderr.contains("warning: products were not checked against a pack"), unchecked.stderr)
    }

    /// Issue 42: a code for something the app sells breaches App Review Guideline 3.1.1, and the publisher hears so at
    /// the moment of issuing, with the route that is allowed (an offer code the visitor redeems and pays Apple for).
    func testEveryCodeForAProductTheAppSellsNamesGuidelineThreeOneOneAndTheOfferCodeRoute() throws {
        for products in [Self.cityPack, Self.tripPass] {
            let r = try issue(["--pack-dir", ExamplePack.root.path], products: products)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stderr.contains("\(products) is sold in the app through In-App Purchase; App Review Guideline 3.1.1"), r.stderr)
            XCTAssertTrue(r.stderr.contains("hand out an App Store offer code the visitor redeems and pays Apple for"), r.stderr)
            XCTAssertTrue(r.stderr.contains("docs/operations.md, \"Selling access at a desk, and giving it away\""), r.stderr)
        }
    }

    func testADateOnlyTimeIsMidnightUTC() throws {
        let r = try issue(["--out", dir + "/grant.json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("from 2026-12-01T00:00:00Z until 2026-12-08T00:00:00Z"), r.stderr)
        let envelope = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/grant.json"))) as? [String: Any])
        let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String)))
        let grant = try XCTUnwrap(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
        XCTAssertEqual(grant["notBefore"] as? String, "2026-12-01T00:00:00Z")
        XCTAssertEqual(grant["notAfter"] as? String, "2026-12-08T00:00:00Z")
        XCTAssertEqual(try issue([], from: "2026-12-1").status, 2, "a date is YYYY-MM-DD")
    }

    func testAShortCodeIsPrintedWhenItFitsAndTheLongOneWithAReasonOtherwise() throws {
        let short = try issue([])
        XCTAssertEqual(short.status, 0, short.stderr)
        let code = short.stdout.trimmingCharacters(in: .newlines)
        XCTAssertEqual(code.count, 140, code)
        XCTAssertEqual(code.filter { $0 != "-" }.count, 117, code)
        XCTAssertTrue(short.stderr.contains("the root was not checked"), short.stderr)
        let two = try issue([], products: Self.cityPack + "," + Self.tripPass)
        XCTAssertTrue(two.stdout.hasPrefix("PTG1."), two.stdout)
        XCTAssertTrue(two.stderr.contains("note: printing the long code: a short code names one product, and this grant has 2"), two.stderr)
        let halfHour = try issue([], from: "2026-12-01T09:30:00Z")
        XCTAssertTrue(halfHour.stdout.hasPrefix("PTG1."), halfHour.stdout)
        XCTAssertTrue(halfHour.stderr.contains("whole hours"), halfHour.stderr)
        let forced = try issue(["--code-form", "long"])
        XCTAssertTrue(forced.stdout.hasPrefix("PTG1."), forced.stdout)
        XCTAssertFalse(forced.stderr.contains("note: printing the long code"), forced.stderr)
        XCTAssertEqual(try issue(["--code-form", "compact"], products: Self.cityPack + "," + Self.tripPass).status, 2)
    }

    func testTheOldKeySpellingStillWorksWithANotice() throws {
        let r = try CLI.run(["grant", "issue", "--key", keys + "/grant.pem", "--products", Self.cityPack, "--not-before", "2026-12-01", "--not-after", "2026-12-02"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("note: --key is now spelled --grant-key"), r.stderr)
    }

    func testAQRCodeReadsBackAsThePrintedCodeAndOpensTheStop() throws {
        let zbarimg = "/usr/bin/zbarimg"
        guard FileManager.default.isExecutableFile(atPath: zbarimg) else { throw RequiredTool.missing("zbarimg not installed (apt zbar-tools): the QR code is not read back") }
        let site = dir + "/site"
        try CLI.publishExamplePack(in: site)
        let root = site + "/pub/root/1.root.json", png = dir + "/desk.png"
        // Whole hours (a short code's unit) around now: access judges the manifest's creation time against --at, as the app
        // judges it against its clock.
        let now = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600 + 3600)
        let notAfter = Timestamp.format(now.addingTimeInterval(86_400))
        let r = try CLI.run(["grant", "issue", "--grant-key", site + "/keys/grant.pem", "--pack-dir", ExamplePack.root.path, "--root", root, "--products", Self.tripPass,
                             "--not-before", Timestamp.format(now.addingTimeInterval(-86_400)), "--not-after", notAfter, "--qr", png])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stderr.contains("the root was not checked"), r.stderr)
        let printed = r.stdout.trimmingCharacters(in: .newlines)
        XCTAssertEqual(printed.count, 140)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))
        XCTAssertEqual(Array(bytes.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR width: version 6 (41 modules) plus a quiet zone of 4 each side, 8 px a module. In alphanumeric mode the 140
        // characters fit version 6; in byte mode they would need version 8 (49 modules, 456 px).
        XCTAssertEqual(bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }, (41 + 8) * 8)
        let read = String(decoding: try runTool(zbarimg, ["--raw", "-q", png]), as: UTF8.self).trimmingCharacters(in: .newlines)
        XCTAssertEqual(read, printed)
        let access = try CLI.run(["access", site + "/cdn/packs/royal-mile/1/manifest.json", "--root", root, "--scene", "05-netherbow",
                                  "--code", read, "--at", Timestamp.format(now)])
        XCTAssertEqual(access.status, 0, access.stdout + access.stderr)
        XCTAssertTrue(access.stdout.contains("OPEN — access code"), access.stdout)
        XCTAssertTrue(access.stdout.contains("until \(notAfter)"), access.stdout)
        let later = try CLI.run(["access", site + "/cdn/packs/royal-mile/1/manifest.json", "--root", root, "--scene", "05-netherbow",
                                 "--code", read, "--at", notAfter])
        XCTAssertEqual(later.status, 1, later.stdout)
    }

    func testAKeyThatIsNotTheRootsGrantKeyIsRefused() throws {
        try CLI.publishExamplePack(in: dir + "/other")
        let r = try issue(["--root", dir + "/other/pub/root/1.root.json"])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stderr.contains("is not one of root version 1's grant keys"), r.stderr)
        XCTAssertEqual(r.stdout, "")
    }

    func testAFailedQRWriteLeavesNoFileBehind() throws {
        let out = dir + "/grant.json", png = dir + "/missing-folder/desk.png"
        let r = try issue(["--out", out, "--qr", png])
        XCTAssertEqual(r.status, 2)
        XCTAssertEqual(r.stdout, "", "no code is printed for a run that failed")
        XCTAssertFalse(FileManager.default.fileExists(atPath: png))
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "the envelope written first is removed again")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["keys"])
    }
}

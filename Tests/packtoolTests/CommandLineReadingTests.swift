import Foundation
import PackCrypto
import PackSigning
import TestSupport
import XCTest

/// Issue 45, item 3: the small misreadings that each cost an author a retry — `help COMMAND`, a sub-command's own
/// usage line, `review sign` on a pack folder or several stops, and a reviewer's id apart from their name.
final class CommandLineReadingTests: XCTestCase {
    func testHelpCommandPrintsThatCommandsHelpAndHelpOfANonCommandSuggestsOne() throws {
        for args in [["help", "new"], ["help", "new", "stop"]] {
            let r = try CLI.run(args)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertEqual(r.stdout, try CLI.run(["new", "--help"]).stdout, args.joined(separator: " "))
        }
        XCTAssertTrue(try CLI.run(["help"]).stdout.hasPrefix("usage: packtool <command>"))
        let wrong = try CLI.run(["help", "lnit"])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("no command \"lnit\"; did you mean \"lint\"?"), wrong.stderr)
    }

    func testAUsageErrorInASubcommandShowsThatSubcommandsUsageLine() throws {
        let stop = try CLI.run(["new", "stop", "pack", "01-a", "--bogus"])
        XCTAssertEqual(stop.status, 2)
        XCTAssertTrue(stop.stderr.contains("usage: packtool new stop PACK NN-slug"), stop.stderr)
        XCTAssertFalse(stop.stderr.contains("new pack"), stop.stderr)
        let show = try CLI.run(["root", "show", "--bogus"])
        XCTAssertTrue(show.stderr.hasSuffix("usage: packtool root show [FILE | --state DIR]\n"), show.stderr)
        // An entry's continuation lines are not taken for another sub-command's; with none named, the first entry.
        let rotate = try CLI.run(["root", "rotate", "--bogus"])
        XCTAssertTrue(rotate.stderr.hasSuffix("usage: packtool root rotate --state DIR --sign-with OLDROOT.pem... [--root-key NEWROOT.pem...]\n"), rotate.stderr)
        XCTAssertTrue(try CLI.run(["new", "--bogus"]).stderr.contains("usage: packtool new pack DIR"))
    }

    func testReviewSignOnAPackFolderSignsOnlyTheStopsWhoseSignoffIsMissingOrStaleAndSaysWhich() throws {
        let copy = try PackCopy()
        try copy.edit("stops/03-mercat-cross/scene.json", replacing: "\"fov\": 70,", with: "\"fov\": 71,")
        try FileManager.default.removeItem(at: copy.stop(4).appendingPathComponent("signoff.json"))
        let untouched = try Data(contentsOf: copy.stop(0).appendingPathComponent("signoff.json"))
        let key = try Self.exampleKey()
        for folder in [copy.root.path, copy.root.path + "/stops"] {
            let r = try CLI.run(["review", "sign", folder, "--reviewer-key", key, "--reviewer", "example-historian"])
            XCTAssertEqual(r.status, 0, r.stderr)
            if folder.hasSuffix("stops") {
                XCTAssertTrue(r.stdout.hasSuffix("review sign: signed 0 of 7 stops; every sign-off by example-historian is current\n"), r.stdout)
                continue
            }
            XCTAssertTrue(r.stdout.contains("as example-historian (historian): its sign-off was stale: the scene changed since\n"), r.stdout)
            XCTAssertTrue(r.stdout.contains("as example-historian (historian): it had no sign-off by this reviewer\n"), r.stdout)
            XCTAssertTrue(r.stdout.contains("already current (left as they were): 01-castle-esplanade, 02-gladstones-land, 04-tron-kirk, 06-canongate-tolbooth, 07-abbey-strand\n"), r.stdout)
            XCTAssertTrue(r.stdout.hasSuffix("review sign: signed 2 of 7 stops\n"), r.stdout)
        }
        XCTAssertEqual(try Data(contentsOf: copy.stop(0).appendingPathComponent("signoff.json")), untouched, "a current sign-off is left as it was")
        XCTAssertEqual(try CLI.run(["lint", copy.root.path]).status, 0)
    }

    func testReviewSignTakesSeveralStopsOfOnePackAndRefusesAFolderThatIsNeither() throws {
        let copy = try PackCopy()
        let key = try Self.exampleKey()
        let two = try CLI.run(["review", "sign", copy.stop(0).path, copy.stop(1).path, "--reviewer-key", key, "--reviewer", "example-historian", "--format", "json"])
        XCTAssertEqual(two.status, 0, two.stderr)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(two.stdout.utf8)) as? [String: Any])
        let signed = try XCTUnwrap(object["signed"] as? [[String: Any]])
        XCTAssertEqual(signed.map { $0["scene"] as? String }, ["01-castle-esplanade", "02-gladstones-land"])
        XCTAssertEqual(signed.map { $0["was"] as? String }, ["current", "current"])

        // A folder that holds neither pack.json nor scene.json is named as such, not read as a stop of the folder above.
        let other = try temporaryDirectory()
        try FileManager.default.createDirectory(atPath: other + "/notes", withIntermediateDirectories: true)
        let neither = try CLI.run(["review", "sign", other + "/notes", "--reviewer-key", key, "--reviewer", "example-historian"])
        XCTAssertEqual(neither.status, 2)
        XCTAssertTrue(neither.stderr.contains("notes: neither a pack folder (no pack.json) nor a stop folder (no scene.json)"), neither.stderr)
        XCTAssertFalse(neither.stderr.contains("pack.json: file not found"), neither.stderr)
        let both = try CLI.run(["review", "sign", copy.root.path, copy.stop(0).path, "--reviewer-key", key, "--reviewer", "example-historian"])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("give one pack folder"), both.stderr)
    }

    func testKeyGenerateTakesTheReviewersIdAndDisplayNameApartAndReadsTheOldSpelling() throws {
        let dir = try temporaryDirectory()
        let r = try CLI.run(["key", "generate", "--role", "reviewer", "--out", dir, "--id", "ada-lovelace", "--display-name", "Ada Lovelace", "--unencrypted"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let raw = Hex.encode(try KeyFile.loadPublicKey(at: dir + "/ada-lovelace.pub").rawRepresentation)
        XCTAssertTrue(r.stdout.contains("{\"id\": \"ada-lovelace\", \"name\": \"Ada Lovelace\", \"role\": \"historian\", \"publicKey\": \"\(raw)\"}"), r.stdout)

        // A person's name where the id goes (the scaffold once hinted `--name HISTORIAN`) is refused, naming the option.
        let person = try CLI.run(["key", "generate", "--role", "reviewer", "--out", dir, "--name", "Ada Lovelace", "--unencrypted"])
        XCTAssertEqual(person.status, 2)
        XCTAssertTrue(person.stderr.contains("note: --name is now spelled --id"), person.stderr)
        XCTAssertTrue(person.stderr.contains("--display-name \"Ada Lovelace\""), person.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/Ada Lovelace.pem"))
        let old = try CLI.run(["key", "generate", "--role", "manifest", "--out", dir, "--name", "manifest-2", "--unencrypted"])
        XCTAssertEqual(old.status, 0, old.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir + "/manifest-2.pem"))
        let misplaced = try CLI.run(["key", "generate", "--role", "index", "--out", dir, "--display-name", "Ada", "--unencrypted"])
        XCTAssertEqual(misplaced.status, 2)

        let scaffold = try CLI.run(["new", "pack", dir + "/walk"])
        XCTAssertTrue(scaffold.stdout.contains("packtool key generate --role reviewer --out keys --id historian --display-name"), scaffold.stdout)
    }

    /// The example historian's key, copied with mode 0600 (git keeps no modes).
    static func exampleKey() throws -> String {
        let path = try temporaryDirectory() + "/historian.pem"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("keys-example/historian.pem").path, toPath: path)
        chmod(path, 0o600)
        return path
    }
}

import PackModel
import XCTest

/// Issue 41: a grant id is parsed once, whatever a person typed, and compared in one canonical form everywhere.
final class GrantIDTests: XCTestCase {
    func testCapitalsDashesAndSpacesAreTheSameId() {
        for typed in ["4ac2380e", "4AC2380E", "4ac2-380e", "4AC2 380E", " 4ac2-38 0e "] {
            XCTAssertEqual(GrantID(typed)?.text, "4ac2380e", typed)
        }
    }

    func testWhatIsNotHexadecimalIsNotAnId() {
        for typed in ["", "   ", "--", "4ac2380g", "grant_1", "4ac2\u{0}380e", "４ac2", String(repeating: "a", count: GrantID.maxDigits + 1)] {
            XCTAssertNil(GrantID(typed), typed)
        }
        XCTAssertNotNil(GrantID(String(repeating: "a", count: GrantID.maxDigits)))
    }

    func testDocumentsAreComparedInCanonicalFormSoOldListsStillMatch() {
        XCTAssertTrue(GrantID.matches("4AC2-380E", "4ac2380e"))
        XCTAssertFalse(GrantID.matches("4ac2380e", "4ac2380f"))
        let list = RevocationsDocument(version: 1, created: "2026-12-01T00:00:00Z", revoked: [.init(id: "4AC2380E", reason: "lost", revoked: "2026-12-01T00:00:00Z")])
        XCTAssertEqual(list.reason(for: "4ac2380e"), "lost")
        XCTAssertNil(list.reason(for: "4ac2380f"))
    }

    func testAPrefixMatchesInCanonicalForm() throws {
        let id = try XCTUnwrap(GrantID("4ac2380e"))
        XCTAssertTrue(id.hasPrefix(try XCTUnwrap(GrantID("4AC2-3"))))
        XCTAssertFalse(id.hasPrefix(try XCTUnwrap(GrantID("4ac3"))))
        XCTAssertEqual(id.short, "4ac2380e")
    }
}

import PackModel
import XCTest

/// The one "did you mean" of the CLI, the C ABI and lint.
final class NearMissTests: XCTestCase {
    func testASwappedPairIsOneEditAway() {
        XCTAssertEqual(NearMiss.distance("lnit", "lint"), 1)
        XCTAssertEqual(NearMiss.closest(to: "lnit", in: ["lint", "inspect", "install"]), "lint")
    }

    func testCaseAsideAndPrefixesSuggestButFarNamesDoNot() {
        XCTAssertEqual(NearMiss.closest(to: "--Format", in: ["--format", "--strict"]), "--format")
        XCTAssertEqual(NearMiss.closest(to: "purchace", in: ["purchases", "scene"], maxDistance: 2), "purchases")
        XCTAssertEqual(NearMiss.closest(to: "instal", in: ["install", "inspect"]), "install")
        XCTAssertNil(NearMiss.closest(to: "zebra", in: ["lint", "sign", "verify"]))
        XCTAssertNil(NearMiss.closest(to: "lint", in: ["lint", "list"]), "a name that is a candidate needs no suggestion")
    }
}

@testable import PackLint
import XCTest

/// Lint tells authors about the characters the app will refuse in a name, before they ship.
final class NameCharactersTests: XCTestCase {
    func testInvisibleAndBidirectionalCharactersAreNamedByCodePoint() throws {
        let problem = try XCTUnwrap(FilesRule.portabilityProblem("story\u{202E}3pm.vtt"))
        XCTAssertTrue(problem.contains("U+202E") && problem.contains("bidirectional"), problem)
        XCTAssertTrue(try XCTUnwrap(FilesRule.portabilityProblem("story\u{200C}.vtt")).contains("U+200C"))
    }

    func testCharactersThatFoldIntoOtherLettersAreNamed() throws {
        XCTAssertTrue(try XCTUnwrap(FilesRule.portabilityProblem("stra\u{DF}e.vtt")).contains("U+00DF"))
        XCTAssertTrue(try XCTUnwrap(FilesRule.portabilityProblem("\u{FB01}le.vtt")).contains("U+FB01"))
        XCTAssertNil(FilesRule.portabilityProblem("story.vtt"))
    }
}

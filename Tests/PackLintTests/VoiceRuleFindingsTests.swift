@testable import PackLint
import XCTest

/// How findings on the voice are worded and placed.
final class VoiceRuleFindingsTests: XCTestCase {
    /// An offset is past the limit only as the message states it, to the hundredth: an outside review saw "lags the
    /// voice by 0.30 s … the limit is 0.3 s".
    func testAnOffsetIsPastTheLimitOnlyAsTheMessageStatesIt() {
        XCTAssertFalse(VoiceRule.beyond(0.3, 0.3))
        XCTAssertFalse(VoiceRule.beyond(0.3049, 0.3))
        XCTAssertFalse(VoiceRule.beyond(-0.302, 0.3))
        XCTAssertTrue(VoiceRule.beyond(0.306, 0.3))
        XCTAssertTrue(VoiceRule.beyond(-1.0, 0.3))
    }
}

import PackTrust
import XCTest

/// Issue 42: every failure code has one answer to "what does the app do now?", and apps can switch over the answers.
final class RecoveryTests: XCTestCase {
    func testEveryCodeOfTheRegistryHasARecoveryChosenForIt() {
        for code in VerificationFailure.Code.all {
            XCTAssertNotNil(VerificationFailure.Code.recoveriesForTests[code.name], "\(code.name) has no recovery of its own")
        }
        XCTAssertEqual(Set(VerificationFailure.Code.recoveriesForTests.keys), Set(VerificationFailure.Code.all.map(\.name)), "a recovery for a code that does not exist")
    }

    func testTheCommonFailuresTellTheAppWhatToDo() {
        let cases: [(VerificationFailure.Code, Recovery)] = [
            (.space, .freeSpace), (.hash, .reportToPublisher), (.clockSkew, .checkClock), (.fetchTimeout, .retryLater),
            (.expired, .retryLater), (.cancelled, .none), (.rootMissing, .updateApp), (.stateCorrupt, .reinstall), (.request, .fixTheApp),
        ]
        for (code, recovery) in cases { XCTAssertEqual(VerificationFailure(code, "x").recovery, recovery, code.name) }
    }

    /// What an app writes: one `switch` with no `default`, so a recovery added later is a compile error there.
    func testAnAppCanSwitchOverEveryRecovery() {
        func message(_ recovery: Recovery) -> String {
            switch recovery {
            case .none: return ""
            case .retryLater: return "Try again later."
            case .freeSpace: return "Free some space."
            case .checkClock: return "Check the date and time."
            case .reinstall: return "Download the pack again."
            case .updateApp: return "Update the app."
            case .reportToPublisher: return "This pack cannot be installed right now."
            case .fixTheApp: return "Something went wrong."
            }
        }
        XCTAssertEqual(Recovery.allCases.map(message).filter(\.isEmpty).count, 1)
        XCTAssertEqual(Recovery.allCases.count, 8)
    }
}

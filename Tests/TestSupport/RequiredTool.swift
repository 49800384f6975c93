import Foundation
import XCTest

/// A server or tool a suite runs for real (nginx, SeaweedFS, zbarimg): optional on a developer's clone, mandatory in
/// CI. Under `PACKTOOL_REQUIRE_SHARED_TESTDATA=1` — the switch `.ci/run` sets, which makes the third-party data
/// mandatory too — a missing one fails the test instead of skipping it, so CI cannot pass without the real servers.
public enum RequiredTool {
    /// The error a test throws when what it needs is missing: an `XCTSkip` that says so, or a failure under the switch.
    public static func missing(_ why: String) -> Error {
        if ProcessInfo.processInfo.environment["PACKTOOL_REQUIRE_SHARED_TESTDATA"] == "1" {
            return ThirdPartyData.Missing(description: why + "; PACKTOOL_REQUIRE_SHARED_TESTDATA=1 requires it")
        }
        return XCTSkip(why)
    }
}

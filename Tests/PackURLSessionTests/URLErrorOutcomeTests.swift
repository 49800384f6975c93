import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import PackURLSession
import PackVerify
import XCTest

/// How URLSession's errors end a download attempt: what will fail again the same way is refused at once, what a
/// retry may cure is retried.
final class URLErrorOutcomeTests: XCTestCase {
    private func code(_ outcome: URLSessionDownload.Outcome) -> (refused: Bool, code: String)? {
        switch outcome {
        case .refused(let failure): return (true, failure.code)
        case .retry(let failure): return (false, failure.code)
        default: return nil
        }
    }

    /// Issue 30: App Transport Security's refusal of plain http:// (-1022) was retried until the deadline; it is
    /// refused at once as `fetch-tls`, saying what to change.
    func testAnAppTransportSecurityRefusalIsRefusedAtOnceSayingToServeHTTPS() throws {
        let outcome = URLSessionDownload.outcome(URLError(try XCTUnwrap(URLError.Code(rawValue: -1022))))
        let result = try XCTUnwrap(code(outcome))
        XCTAssertTrue(result.refused)
        XCTAssertEqual(result.code, "fetch-tls")
        if case .refused(let failure) = outcome { XCTAssertTrue(failure.message.contains("https://"), failure.message) }
    }

    func testADroppedConnectionIsRetriedAndAnUntrustedCertificateRefused() throws {
        XCTAssertEqual(code(URLSessionDownload.outcome(URLError(.networkConnectionLost)))?.refused, false)
        XCTAssertEqual(code(URLSessionDownload.outcome(URLError(.serverCertificateUntrusted)))?.code, "fetch-tls")
        XCTAssertEqual(code(URLSessionDownload.outcome(URLError(.serverCertificateUntrusted)))?.refused, true)
    }
}

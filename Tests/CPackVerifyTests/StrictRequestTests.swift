import CPackVerify
import Foundation
import TestSupport
import XCTest

/// Issue 30: the C ABI's requests are strict, checked here through the Swift functions behind the C symbols, so that
/// the CryptoKit stand-in's build runs them too (the ctypes suite, Tests/python/test_cabi.py, runs the shipped
/// library). An unknown key used to be ignored: `"purchace"` dropped a paid City Pack and sent a customer to the
/// paywall. Every bad request is the `request` code with the outcome `request`, names the key, and touches nothing.
final class StrictRequestTests: XCTestCase {
    /// Calls one entry point with `json` (bytes, so invalid UTF-8 can be sent) and decodes its answer.
    private func call(_ entry: (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?, _ json: [UInt8]) throws -> [String: Any] {
        let answer = (json + [0]).withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { entry($0.baseAddress) } }
        let text = try XCTUnwrap(answer.map { String(cString: $0) })
        packverify_free(answer)
        return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    private func call(_ entry: (UnsafePointer<CChar>?) -> UnsafeMutablePointer<CChar>?, _ request: [String: Any]) throws -> [String: Any] {
        try call(entry, Array(try JSONSerialization.data(withJSONObject: request)))
    }

    private func assertRequestError(_ answer: [String: Any], naming: String, file: StaticString = #filePath, line: UInt = #line) {
        let error = answer["error"] as? [String: Any]
        XCTAssertEqual(answer["ok"] as? Bool, false, "\(answer)", file: file, line: line)
        XCTAssertEqual(error?["code"] as? String, "request", "\(answer)", file: file, line: line)
        XCTAssertEqual(error?["outcome"] as? String, "request", "a bad request is its own outcome, not I/O: \(answer)", file: file, line: line)
        XCTAssertTrue((error?["message"] as? String ?? "").contains(naming), "\(answer)", file: file, line: line)
    }

    func testAMisspeltPurchasesKeyIsARequestErrorWithADidYouMean() throws {
        let dir = try temporaryDirectory()
        let answer = try call(packverify_access, ["state": dir + "/state", "into": dir + "/install", "pack": "royal-mile",
                                                  "request": ["scene": "05-netherbow", "purchace": [["productId": "x", "purchaseDate": "2026-11-01T00:00:00Z"]]]])
        assertRequestError(answer, naming: #"unknown key "purchace"; did you mean "purchases"?"#)
    }

    func testAnUnknownTopLevelKeyIsRefusedBeforeAnythingIsPinned() throws {
        let dir = try temporaryDirectory()
        let answer = try call(packverify_pin_root, ["state": dir + "/state", "root": dir + "/1.root.json", "roots": [String]()])
        assertRequestError(answer, naming: #"unknown key "roots""#)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir + "/state"), "a refused request created nothing")
    }

    func testAWrongTypeAndInvalidUTF8NameTheirKey() throws {
        let dir = try temporaryDirectory()
        assertRequestError(try call(packverify_verify_installed, ["state": dir + "/state", "into": dir, "pack": "p", "threads": "2"]), naming: "\"threads\"")
        let badUTF8 = Array(#"{"state": ""#.utf8) + [0xC3, 0x28] + Array(#"", "root": "r"}"#.utf8)
        assertRequestError(try call(packverify_pin_root, badUTF8), naming: "\"state\"")
    }
}

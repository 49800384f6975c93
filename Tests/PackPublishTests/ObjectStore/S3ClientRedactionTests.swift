@testable import PackPublish
import XCTest

/// Whatever a store quotes back, packtool's messages never carry the configured credentials (issue 29, finding 10).
final class S3ClientRedactionTests: XCTestCase {
    private func client(token: String?) throws -> S3Client {
        let credentials = AWSCredentials(accessKeyID: "AKIDEXAMPLE0001", secretAccessKey: "wJalr/XUtnFEMI+K7MDENG", sessionToken: token)
        return try S3Client(settings: ObjectStoreSettings(credentials: credentials, region: "us-east-1", endpoint: "http://127.0.0.1:1",
                                                          pathStyle: true, profile: "default"), bucket: "bucket")
    }

    func testTheSecretTheTokenAndTheKeyIDAreRedactedAsSentEscapedOrEncoded() throws {
        let token = "FwoGZXIvYXdzEJr//////////wEaDM+token&more=="
        let s3 = try client(token: token)
        let quoted = "bad \(token) / \(S3XML.escape(token)) / \(SigV4.encode(token, keepingSlashes: false)) for AKIDEXAMPLE0001 wJalr/XUtnFEMI+K7MDENG"
        let shown = s3.redacted(quoted)
        for secret in [token, S3XML.escape(token), SigV4.encode(token, keepingSlashes: false), "AKIDEXAMPLE0001", "wJalr/XUtnFEMI+K7MDENG"] {
            XCTAssertFalse(shown.contains(secret), shown)
        }
        XCTAssertTrue(shown.hasPrefix("bad [redacted] / [redacted] / [redacted] for [redacted] [redacted]"), shown)
    }

    func testControlCharactersFromTheStoreCannotDriveTheTerminal() throws {
        XCTAssertEqual(try client(token: nil).redacted("a\u{1B}[2Jb\u{7F}c"), "a?[2Jb?c")
    }
}

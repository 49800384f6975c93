import PackNet
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

    private func response(_ status: Int, _ xml: String) -> S3Client.Response {
        S3Client.Response(head: try! ResponseHead.parse(Array("HTTP/1.1 \(status) Whatever\r\n\r\n".utf8)), body: Array(xml.utf8))
    }

    /// Issue 41: a store's words are shown decoded (`&#39;` was printed as it came), through the one XML reader.
    func testTheStoresMessageIsShownWithItsEntitiesDecoded() throws {
        let refusal = try client(token: nil).refusal("PUT index.json", response(400, "<Error><Code>InvalidArgument</Code><Message>the key&#39;s name &amp; size &lt;5&gt;</Message></Error>"))
        XCTAssertEqual("\(refusal)", "PUT index.json: HTTP 400 InvalidArgument: the key's name & size <5>")
    }

    /// Issue 41: RequestTimeTooSkewed names the clock and both times, and does not blame the credentials.
    func testAClockTooFarFromTheStoresIsNamedAsTheClockNotTheCredentials() throws {
        let xml = "<Error><Code>RequestTimeTooSkewed</Code><Message>The difference between the request time and the current time is too large.</Message>"
            + "<RequestTime>20261212T090000Z</RequestTime><ServerTime>2026-12-05T09:00:00Z</ServerTime></Error>"
        let text = "\(try client(token: nil).refusal("PUT index.json", response(403, xml)))"
        XCTAssertTrue(text.contains("this machine's clock differs from the store's by more than 15 minutes"), text)
        XCTAssertTrue(text.contains("this machine said 20261212T090000Z; the store's clock says 2026-12-05T09:00:00Z"), text)
        XCTAssertFalse(text.contains("check the access key"), text)
        XCTAssertTrue("\(try client(token: nil).refusal("GET x", response(403, "<Error><Code>SignatureDoesNotMatch</Code></Error>")))".contains("check the access key"))
    }

    /// A secret the store echoes as a character reference is redacted after decoding too.
    func testASecretEchoedAsCharacterReferencesIsStillRedacted() throws {
        let encoded = "AKIDEXAMPLE0001".unicodeScalars.map { "&#\($0.value);" }.joined()
        let text = "\(try client(token: nil).refusal("GET x", response(400, "<Error><Code>Bad</Code><Message>key \(encoded)</Message></Error>")))"
        XCTAssertFalse(text.contains("AKIDEXAMPLE0001"), text)
    }
}

import Foundation
import PackTrust
import TestSupport
import XCTest

/// The code registry is the one source of failure codes: unique names, a meaning each, and the generated document
/// and the C header kept equal to it.
final class VerificationCodesTests: XCTestCase {
    func testEveryCodeHasAUniqueStableNameAndAMeaning() {
        let names = VerificationFailure.Code.all.map(\.name)
        XCTAssertEqual(Set(names).count, names.count, "a code is listed twice")
        for code in VerificationFailure.Code.all {
            XCTAssertTrue(code.name.allSatisfy { $0.isLowercase || $0 == "-" }, code.name)
            XCTAssertFalse(code.meaning.isEmpty, code.name)
        }
    }

    func testTheVerificationCodesDocumentIsGeneratedFromTheRegistry() throws {
        let doc = Repository.root.appendingPathComponent("docs/verification-codes.md")
        let expected = VerificationFailure.Code.markdownTable
        let actual = (try? String(contentsOf: doc, encoding: .utf8)) ?? ""
        if actual != expected {
            let fresh = Repository.root.appendingPathComponent(".build/verification-codes.md")
            try expected.write(to: fresh, atomically: true, encoding: .utf8)
            XCTFail("docs/verification-codes.md is stale: cp .build/verification-codes.md docs/")
        }
    }

    func testTheCHeaderDocumentsEveryCode() throws {
        let header = try String(contentsOf: Repository.root.appendingPathComponent("Sources/CPackVerify/include/packverify.h"), encoding: .utf8)
        let missing = VerificationFailure.Code.all.map(\.name).filter { !header.contains("\"\($0)\"") }
        XCTAssertEqual(missing, [], "packverify.h does not document these codes")
        let outcomes = VerificationFailure.Code.Outcome.allCases.map(\.rawValue).filter { !header.contains("\"\($0)\"") }
        XCTAssertEqual(outcomes, [], "packverify.h does not document these outcomes")
    }

    /// Issue 30: a malformed request and a cancel are outcomes of their own, not I/O; outcomes are only ever added.
    func testABadRequestAndACancelHaveOutcomesOfTheirOwn() {
        XCTAssertEqual(VerificationFailure.Code.request.outcome, .request)
        XCTAssertEqual(VerificationFailure.Code.cancelled.outcome, .cancelled)
        XCTAssertEqual(VerificationFailure.Code.Outcome.allCases.map(\.rawValue), ["refused", "I/O", "request", "cancelled"])
        XCTAssertFalse(VerificationFailure(.request, "x").isRefusal)
        XCTAssertFalse(VerificationFailure(.cancelled, "x").isRefusal)
    }

    func testRefusalsAndLocalFailuresAreTold() {
        XCTAssertTrue(VerificationFailure(.rollback, "x").isRefusal)
        XCTAssertFalse(VerificationFailure(.write, "x").isRefusal)
        XCTAssertEqual(VerificationFailure(.mixAndMatch, "x").code, "mix-and-match")
    }
}

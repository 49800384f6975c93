import Foundation
import PackCrypto
import PackPublish
import TestSupport
import XCTest

/// AWS's Signature Version 4 test suite (the copy in botocore's source distribution, which `make test` fetches into
/// `.build/fetched/aws4_testsuite`): for every request, the canonical request, the string to sign and the
/// `Authorization` header match AWS's byte for byte.
final class SigV4SuiteTests: XCTestCase {
    private let signer = SigV4(credentials: AWSCredentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"),
                               region: "us-east-1", service: "service")

    /// One `.req` file: the request line, headers (indented lines continue the one before) and the body.
    private struct RawRequest {
        var method = "", path = ""
        var query: [(name: String, value: String)] = []
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []

        init(_ text: String) throws {
            let parts = text.components(separatedBy: "\n\n")
            var lines = parts[0].components(separatedBy: "\n")
            body = Array(parts.dropFirst().joined(separator: "\n\n").utf8)
            let first = lines.removeFirst()
            guard let space = first.firstIndex(of: " "), let version = first.range(of: " HTTP/", options: .backwards) else {
                throw NSError(domain: "bad request line: \(first)", code: 1)
            }
            method = String(first[..<space])
            let target = String(first[first.index(after: space)..<version.lowerBound])
            let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            path = String(split[0])
            if split.count > 1 {
                for pair in split[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    query.append((String(kv[0]).removingPercentEncoding ?? String(kv[0]), kv.count > 1 ? String(kv[1]).removingPercentEncoding ?? String(kv[1]) : ""))
                }
            }
            for line in lines {
                if line.first == " " || line.first == "\t", !headers.isEmpty {
                    headers[headers.count - 1].value += "\n" + line
                    continue
                }
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers.append((String(line[..<colon]), String(line[line.index(after: colon)...])))
            }
        }
    }

    /// Every folder of the suite holding a `.req` file, by name (`get-vanilla`, `normalize-path/get-slash`, …).
    private func cases() throws -> [(name: String, folder: URL)] {
        let root = try ThirdPartyData.fetched("aws4_testsuite")
        var found: [(String, URL)] = []
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)!
        for case let url as URL in walker where url.pathExtension == "req" {
            let folder = url.deletingLastPathComponent()
            found.append((String(folder.path.dropFirst(root.path.count + 1)), folder))
        }
        return found.sorted { $0.0 < $1.0 }
    }

    private func read(_ folder: URL, _ ext: String) throws -> String {
        try String(contentsOf: folder.appendingPathComponent(folder.lastPathComponent + "." + ext), encoding: .utf8)
    }

    func testEveryCaseOfTheSuiteSignsAsAWSDoes() throws {
        let all = try cases()
        XCTAssertGreaterThanOrEqual(all.count, 25, "the suite has its cases: \(all.map(\.name))")
        for (name, folder) in all {
            var raw = try RawRequest(read(folder, "req"))
            // As botocore's runner does: a case whose canonical request carries a session token was signed with one,
            // which the signer sends as `x-amz-security-token` (see `SigV4.signedHeaders`).
            let expected = try read(folder, "creq")
            if let line = expected.components(separatedBy: "\n").first(where: { $0.hasPrefix("x-amz-security-token:") }),
               !raw.headers.contains(where: { $0.name.lowercased() == "x-amz-security-token" }) {
                raw.headers.append(("X-Amz-Security-Token", String(line.dropFirst("x-amz-security-token:".count))))
            }
            let request = SigV4.Request(method: raw.method, path: raw.path, query: raw.query, headers: raw.headers, payloadHash: SHA256.hexHash(raw.body))
            let timestamp = try XCTUnwrap(raw.headers.first { $0.name.lowercased() == "x-amz-date" }?.value, name)
            let canonical = signer.canonicalRequest(request).text
            XCTAssertEqual(canonical, expected, "\(name): canonical request")
            let sts = signer.stringToSign(canonicalRequest: canonical, timestamp: timestamp)
            XCTAssertEqual(sts, try read(folder, "sts"), "\(name): string to sign")
            XCTAssertEqual(signer.authorization(for: request, timestamp: timestamp), try read(folder, "authz"), "\(name): Authorization")
        }
    }
}

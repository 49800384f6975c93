import Foundation
import XCTest

/// Third-party conformance data in `../shared/testdata` (or `$PACKTOOL_SHARED/testdata`): optional on a developer's
/// clone, mandatory in CI.
///
/// A suite that reads it asks for its folder here. When the folder is missing the test is skipped with a message
/// `make test` collects into one summary line; with `PACKTOOL_REQUIRE_SHARED_TESTDATA=1` (set by `.ci/run`) a missing
/// folder fails the test instead, so CI can never pass without running the vectors.
public enum ThirdPartyData {
    /// The marker `make test` looks for in the test log to list the skipped suites.
    public static let skipMarker = "third-party data missing:"

    /// The folder `testdata/<name>` beside the checkout, or a skip (a failure when the data is required).
    public static func folder(_ name: String) throws -> URL {
        try existing(Repository.shared.appendingPathComponent("testdata").appendingPathComponent(name), name)
    }

    /// `url` when it is a folder; otherwise a skip naming `name`, or a failure when the data is required.
    private static func existing(_ url: URL, _ name: String) throws -> URL {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue { return url }
        let why = "\(skipMarker) \(name) (\(url.path) not found)"
        if ProcessInfo.processInfo.environment["PACKTOOL_REQUIRE_SHARED_TESTDATA"] == "1" {
            throw Missing(description: why + "; PACKTOOL_REQUIRE_SHARED_TESTDATA=1 requires it")
        }
        throw XCTSkip(why)
    }

    /// Data `make test` fetches from PyPI into `.build/fetched/<name>` (never committed, e.g. AWS's SigV4 suite from
    /// botocore's source distribution), or a skip with the same marker (a failure when the data is required).
    public static func fetched(_ name: String) throws -> URL {
        try existing(Repository.root.appendingPathComponent(".build/fetched").appendingPathComponent(name), name)
    }

    /// A file under `testdata/<name>/`, or a skip as for `folder`.
    public static func file(_ name: String, _ relative: String) throws -> URL {
        try folder(name).appendingPathComponent(relative)
    }

    /// A JSON file under `testdata/<name>/`, parsed as `T` (`[String: Any]` or `[[String: Any]]`); a file of another
    /// shape is a broken fixture and throws.
    public static func json<T>(_ name: String, _ relative: String, as: T.Type) throws -> T {
        let url = try file(name, relative)
        guard let value = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? T else {
            throw Missing(description: "\(url.path) is not a JSON \(T.self)")
        }
        return value
    }

    /// Required data that is not there, or not in the shape the test reads.
    public struct Missing: Error, CustomStringConvertible {
        public let description: String
    }
}

import Foundation
import TestSupport
import XCTest

/// What the route sheet's CLI tests share: a folder's bytes, the sheet export writes, a sheet written to a file.
enum RouteSheetFiles {
    /// Every file of a folder and its bytes, to show that a command changed exactly what it should.
    static func snapshot(_ root: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let e = try XCTUnwrap(FileManager.default.enumerator(atPath: root.path))
        while let relative = e.nextObject() as? String {
            var isFolder: ObjCBool = false
            let path = root.path + "/" + relative
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
                out[relative] = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        }
        return out
    }

    static func exported(_ pack: URL) throws -> String {
        let r = try CLI.run(["route", "export", pack.path])
        XCTAssertEqual(r.status, 0, r.stderr)
        return r.stdout
    }

    static func write(_ text: String, _ name: String = "route.csv") throws -> String {
        let path = try temporaryDirectory() + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}

import Foundation
import PackLint
import TestSupport
import PackAudio
import XCTest

/// For every rule code: a minimal broken input yields that code at the expected file, line and column.
final class RuleCatalogueTests: XCTestCase {
    func testEveryCodeHasABrokenInputCase() {
        XCTAssertEqual(Set(ruleCases.map(\.code)), Set(Linter.allCodes.map(\.code)))
    }

    func testEveryCaseYieldsItsCodeAtItsPosition() throws {
        for c in ruleCases {
            let copy = try PackCopy()
            try c.mutate(copy)
            let (line, column) = try c.expectedPosition(in: copy.root)
            let found = Linter(listener: StoryVoice.standard()).lint(packAt: copy.root)
            let matching = found.filter { $0.code == c.code }
            XCTAssertFalse(matching.isEmpty, "\(c.code): not reported; got \(found.map { "\($0.code) \($0.message)" })")
            let expectedFile = copy.root.appendingPathComponent(c.file).standardizedFileURL.path
            let atPlace = matching.filter {
                URL(fileURLWithPath: $0.location.file).standardizedFileURL.path == expectedFile && $0.location.line == line && $0.location.column == column
            }
            XCTAssertFalse(atPlace.isEmpty, "\(c.code): expected \(c.file):\(line):\(column), got \(matching.map { "\($0.location.file):\($0.location.line):\($0.location.column)" })")
            for d in matching {
                XCTAssertFalse(d.message.isEmpty, c.code)
                XCTAssertEqual(d.severity, Linter.allCodes.first { $0.code == c.code }?.severity, c.code)
            }
        }
    }
}

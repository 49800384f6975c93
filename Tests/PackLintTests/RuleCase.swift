import Foundation
import PackLint
import TestSupport
import XCTest

/// One minimal broken input for one rule: how to break a fresh copy of the example pack, and where the finding must
/// point — the first occurrence of `marker` (searched after `after`) in `file`, or the whole file when nil.
struct RuleCase {
    let code: String
    let file: String
    let marker: String?
    var after: String?
    let mutate: (PackCopy) throws -> Void

    init(_ code: String, _ file: String, at marker: String?, after: String? = nil, _ mutate: @escaping (PackCopy) throws -> Void) {
        self.code = code
        self.file = file
        self.marker = marker
        self.after = after
        self.mutate = mutate
    }

    /// Expected (line, column) of the marker in the file as mutated; columns count characters.
    func expectedPosition(in root: URL) throws -> (Int, Int) {
        guard let marker else { return (0, 0) }
        let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
        var searchStart = text.startIndex
        if let after {
            guard let a = text.range(of: after) else { throw failure("anchor \(after) not in \(file)") }
            searchStart = a.upperBound
        }
        guard let m = text.range(of: marker, range: searchStart..<text.endIndex) else { throw failure("marker \(marker) not in \(file)") }
        let before = text[text.startIndex..<m.lowerBound]
        let line = before.filter { $0 == "\n" }.count + 1
        let lineStart = before.lastIndex(of: "\n").map { before.index(after: $0) } ?? before.startIndex
        return (line, before[lineStart...].unicodeScalars.count + 1)
    }

    private func failure(_ message: String) -> NSError { NSError(domain: "RuleCase", code: 1, userInfo: [NSLocalizedDescriptionKey: message]) }
}

extension PackCopy {
    func write(_ relative: String, _ text: String) throws {
        try text.write(to: root.appendingPathComponent(relative), atomically: true, encoding: .utf8)
    }

    func remove(_ relative: String) throws { try FileManager.default.removeItem(at: root.appendingPathComponent(relative)) }

    /// Replaces the first occurrence of a byte string in a binary file.
    func patchBytes(_ relative: String, find: [UInt8], replace: (inout [UInt8], Int) -> Void) throws {
        let url = root.appendingPathComponent(relative)
        var bytes = [UInt8](try Data(contentsOf: url))
        guard let i = (0...(bytes.count - find.count)).first(where: { Array(bytes[$0..<$0 + find.count]) == find }) else {
            throw NSError(domain: "PackCopy", code: 2, userInfo: [NSLocalizedDescriptionKey: "\(relative) has no \(find)"])
        }
        replace(&bytes, i)
        try Data(bytes).write(to: url)
    }
}

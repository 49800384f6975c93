import Foundation

/// A scratch copy of the example pack that a test may break, so every test starts from a clean pack.
public struct PackCopy {
    public let root: URL

    public init() throws {
        root = URL(fileURLWithPath: try temporaryDirectory()).appendingPathComponent("royal-mile")
        try FileManager.default.copyItem(at: ExamplePack.root, to: root)
    }

    /// The copy's stop folder at a route position (0-based).
    public func stop(_ index: Int) -> URL { root.appendingPathComponent("stops/" + ExamplePack.stops[index].lastPathComponent) }

    /// Rewrites a text file with one substitution, failing loudly when the text to replace is not there.
    public func edit(_ relative: String, replacing old: String, with new: String) throws {
        let url = root.appendingPathComponent(relative)
        let text = try String(contentsOf: url, encoding: .utf8)
        guard text.contains(old) else {
            throw NSError(domain: "PackCopy", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(relative) has no \(old)"])
        }
        try text.replacingOccurrences(of: old, with: new).write(to: url, atomically: true, encoding: .utf8)
    }
}

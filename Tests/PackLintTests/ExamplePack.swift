import Foundation

/// The bundled example pack, found from this file's location.
enum ExamplePack {
    static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    static let root = repositoryRoot.appendingPathComponent("scenes/royal-mile")

    static var stops: [URL] {
        let dir = root.appendingPathComponent("stops")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().map { dir.appendingPathComponent($0) }
    }
}

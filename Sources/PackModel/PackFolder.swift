import Foundation

/// An authored pack on disk: `pack.json` plus `stops/<NN-slug>/` scene folders (DESIGN.md §3).
public struct PackFolder {
    public static let signoffFile = "signoff.json"
    public static let sceneFile = "scene.json"
    public static let uncertaintyFile = "uncertainty.json"

    public let url: URL
    public let pack: PackDocument

    public init(url: URL) throws {
        self.url = url
        pack = try DocumentLoader.load(PackDocument.self, from: url.appendingPathComponent("pack.json"))
    }

    /// The folder of one stop.
    public func sceneURL(_ stop: String) -> URL { url.appendingPathComponent("stops").appendingPathComponent(stop) }

    /// Stop folder names present on disk, sorted.
    public func stopFolders() throws -> [String] {
        let stops = url.appendingPathComponent("stops")
        do {
            return try FileManager.default.contentsOfDirectory(atPath: stops.path).filter { name in
                var isDir: ObjCBool = false
                return FileManager.default.fileExists(atPath: stops.appendingPathComponent(name).path, isDirectory: &isDir) && isDir.boolValue
            }.sorted()
        } catch {
            throw ModelError(file: stops.path, message: "cannot list stops: \(error.localizedDescription)")
        }
    }

    /// The digest a sign-off covers: the scene folder without signoff.json.
    public static func contentDigest(ofScene sceneURL: URL) throws -> TreeDigest {
        try TreeDigest(folder: sceneURL, excluding: [signoffFile])
    }
}

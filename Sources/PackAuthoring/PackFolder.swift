#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackModel

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
        return try FileSystem.list(stops.path).filter { FileSystem.isDirectory(stops.path + "/" + $0) }.sorted()
    }

    /// The digest a sign-off covers: the scene folder without signoff.json.
    public static func contentDigest(ofScene sceneURL: URL) throws -> TreeDigest {
        try TreeDigest(folder: sceneURL, excluding: [signoffFile])
    }
}

import Foundation

/// Where tests find the repository, the bundled example pack and the third-party vectors beside the checkout.
public enum Repository {
    public static let root: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    /// `../shared` beside the checkout, or `PACKTOOL_SHARED`; tests reach its data through `ThirdPartyData`.
    public static let shared: URL = {
        if let env = ProcessInfo.processInfo.environment["PACKTOOL_SHARED"] { return URL(fileURLWithPath: env) }
        return root.deletingLastPathComponent().appendingPathComponent("shared")
    }()

}

/// The bundled example pack.
public enum ExamplePack {
    public static let root = Repository.root.appendingPathComponent("scenes/royal-mile")

    /// Stop folders in route order (their names sort in route order).
    public static var stops: [URL] {
        let dir = root.appendingPathComponent("stops")
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted().map { dir.appendingPathComponent($0) }
    }
}

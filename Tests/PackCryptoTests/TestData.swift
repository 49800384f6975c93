import PackCrypto
import Foundation

/// Locates the repository and the third-party vectors in `../shared/testdata` beside the checkout.
enum TestData {
    static let repositoryRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
        }
        fatalError("Package.swift not found above \(#filePath)")
    }()

    static let shared: URL = {
        if let env = ProcessInfo.processInfo.environment["PACKTOOL_SHARED"] { return URL(fileURLWithPath: env) }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared")
    }()

    static func json(_ relative: String) throws -> Any {
        let data = try Data(contentsOf: shared.appendingPathComponent("testdata").appendingPathComponent(relative))
        return try JSONSerialization.jsonObject(with: data)
    }
}

func hex(_ s: String) -> [UInt8] {
    guard let b = Hex.decode(s) else { fatalError("bad hex in test data: \(s)") }
    return b
}



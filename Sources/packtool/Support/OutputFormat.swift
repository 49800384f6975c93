#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `--format text|json`, for the lifecycle commands.
enum OutputFormat {
    static func json(_ a: Arguments) throws -> Bool {
        switch a.value("--format") ?? "text" {
        case "text": return false
        case "json": return true
        case let other: throw CommandLineError.usage("--format \(other): expected text or json")
        }
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import CHeif

/// A plate that could not be decoded or written, naming the file and what the codec said.
public struct ImageError: Error, CustomStringConvertible, Equatable, Sendable {
    public var file: String
    public var message: String

    public init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }

    /// The one place libheif's error values become Swift errors.
    static func check(_ error: heif_error, _ file: String, _ what: String) throws {
        guard error.code != heif_error_Ok else { return }
        let detail = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        throw ImageError(file: file, "\(what): \(detail)")
    }
}

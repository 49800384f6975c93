#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackFiles
import PackCrypto

/// Reads authored JSON documents into model values, with errors that name the file and the field.
///
/// This is the plain decoder for tools that need the values; lint's positional JSON parser (with line and column for
/// every value) reports the same problems at `file:line:col`.
public enum DocumentLoader {
    /// Documents larger than this are refused before decoding: no authored JSON file is anywhere near it.
    public static let maxDocumentBytes = 8 << 20

    /// Decodes the JSON document at `url` as `type`.
    /// - Throws: ``ModelError`` naming the file and, for a decoding failure, the field; a file over
    ///   ``maxDocumentBytes`` is refused unread.
    public static func load<T: Decodable>(_ type: T.Type, from url: URL) throws -> T {
        let data = try read(url)
        do { return try JSONDecoder().decode(T.self, from: data) } catch {
            throw ModelError(file: url.path, message: describe(error))
        }
    }

    /// signoff.json: a JSON array of DSSE envelopes.
    public static func loadSignoffs(from url: URL) throws -> [DSSEEnvelope] {
        try load([DSSEEnvelope].self, from: url)
    }

    static func read(_ url: URL) throws -> Data {
        // The one capped read (PackFiles), its refusals worded for documents.
        do { return Data(try RegularFile.read(url.path, path: url.path, cap: maxDocumentBytes)) } catch let error as FileError {
            switch error.kind {
            case .missing: throw ModelError(file: url.path, message: "file not found")
            case .tooLarge(let size): throw ModelError(file: url.path, message: "file is \(size) bytes, over the \(maxDocumentBytes)-byte limit for JSON documents")
            default: throw ModelError(file: url.path, message: error.message)
            }
        }
    }

    /// A plain-words account of a decoding error: which field, what was wrong.
    public static func describe(_ error: Error) -> String {
        func path(_ keys: [CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error {
        case DecodingError.keyNotFound(let key, let ctx):
            return "missing field \"\(key.stringValue)\"" + (ctx.codingPath.isEmpty ? "" : " in \(path(ctx.codingPath))")
        case DecodingError.typeMismatch(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(type)"
        case DecodingError.valueNotFound(let type, let ctx):
            return "\(path(ctx.codingPath)): expected \(type), found null"
        case DecodingError.dataCorrupted(let ctx):
            let at = path(ctx.codingPath)
            let underlying = ctx.underlyingError.map { String(describing: $0) }
            return (at.isEmpty ? "" : at + ": ") + (underlying ?? ctx.debugDescription)
        default:
            return "\(error)"
        }
    }
}

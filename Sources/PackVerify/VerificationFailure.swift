#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a document, archive or install was not accepted: a stable code and a sentence saying what was wrong.
public struct VerificationFailure: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// Runs `body`, and names `file` in whatever it throws (as a `VerificationFailure`, keeping a failure's code), so
    /// a bad root or manifest is reported as that file's problem, not as a bare parser message.
    public static func about<T>(_ file: URL, _ code: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as VerificationFailure {
            throw VerificationFailure(failure.code, "\(file.path): \(failure.message)")
        } catch {
            throw VerificationFailure(code, "\(file.path): \(error)")
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Why a document, archive or install was not accepted: a code from the registry (`VerificationFailure.Code`) and a
/// sentence saying what was wrong, naming the file or field.
///
/// The code says whether the input was refused (forged, stale, malformed: exit 1) or the operation could not be
/// carried out here (a write error, a full disk, the network: exit 2). Apps and scripts match on `code`, the stable
/// string; the message is for people.
public struct VerificationFailure: Error, Equatable, CustomStringConvertible, Sendable {
    /// The registry code (`kind.id` is the stable string to match on, `kind.outcome` refused or I/O).
    public let kind: Code
    /// One sentence for people, naming the file or field; its wording may change between releases.
    public var message: String

    /// A failure with a registry code and a message naming what was wrong.
    public init(_ kind: Code, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The stable string of the code, as the C ABI and the CLI print it.
    public var code: String { kind.name }

    /// True for a refusal of the input (exit 1); false for a failure to carry out the operation (exit 2).
    public var isRefusal: Bool { kind.outcome == .refused }

    /// What the app does about it (`Recovery`), by its code.
    public var recovery: Recovery { kind.recovery }

    public var description: String { message }

    /// Runs `body`, and names `file` in whatever it throws (as a `VerificationFailure`, keeping a failure's code), so
    /// a bad root or manifest is reported as that file's problem, not as a bare parser message.
    public static func about<T>(_ file: URL, _ kind: Code, _ body: () throws -> T) throws -> T {
        try about(named: file.path, kind, body)
    }

    /// `about(_:_:_:)` with the file named as the caller shows it (packtool: relative to the working folder).
    public static func about<T>(named name: String, _ kind: Code, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let failure as VerificationFailure {
            throw VerificationFailure(failure.kind, "\(name): \(failure.message)")
        } catch {
            throw VerificationFailure(kind, "\(name): \(error)")
        }
    }
}

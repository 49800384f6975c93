#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// A file that could not be opened or read, naming the path and the reason. The modules above turn it into their own
/// error types (`ModelError`, `VerificationFailure`) without losing either part.
public struct FileError: Error, Equatable, CustomStringConvertible {
    /// The path as the caller gave it.
    public var path: String
    /// The reason, usually the system's (`strerror`).
    public var message: String
    /// The system's error number when a system call failed, else 0.
    public var code: Int32
    /// What kind of refusal, for callers that map it to codes of their own (missing, too large, …).
    public var kind: Kind

    /// Why the file was refused.
    public enum Kind: Equatable, Sendable {
        case missing, notRegular, link, changed, system
        case tooLarge(UInt64)
    }

    /// An error about `path`; without `kind`, `ENOENT` is `.missing` and any other code `.system`.
    public init(path: String, message: String, code: Int32 = 0, kind: Kind? = nil) {
        self.path = path
        self.message = message
        self.code = code
        self.kind = kind ?? (code == ENOENT ? .missing : .system)
    }

    public var description: String { "\(path): \(message)" }
}

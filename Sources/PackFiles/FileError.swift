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

    /// An error about `path`; without `kind`, `ENOENT` is `.missing`, `ELOOP` (a link met where `O_NOFOLLOW` refuses
    /// one) `.link` and any other code `.system`.
    public init(path: String, message: String, code: Int32 = 0, kind: Kind? = nil) {
        self.path = path
        self.message = message
        self.code = code
        self.kind = kind ?? (code == ENOENT ? .missing : code == ELOOP ? .link : .system)
    }

    /// The kind for something found that is not what was wanted, from its `st_mode`: a link is `.link` and anything
    /// else `.notRegular`, at whatever depth it was found.
    public static func kind(found mode: mode_t) -> Kind {
        mode & S_IFMT == S_IFLNK ? .link : .notRegular
    }

    public var description: String { "\(path): \(message)" }
}

/// A file that could not be opened or read, naming the path and the reason. The modules above turn it into their own
/// error types (`ModelError`, `VerificationFailure`) without losing either part.
public struct FileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    /// The system's error number when a system call failed, else 0.
    public var code: Int32

    public init(path: String, message: String, code: Int32 = 0) {
        self.path = path
        self.message = message
        self.code = code
    }

    public var description: String { "\(path): \(message)" }
}

import PackTrust

/// How a command failed, which decides the exit code: 1 for a failed check or operation, 2 for usage or I/O errors.
enum CommandLineError: Error {
    case usage(String)
    case failure(String)
    case io(String)

    var exitCode: Int32 {
        switch self {
        case .failure: return 1
        case .usage, .io: return 2
        }
    }

    var message: String {
        switch self {
        case .usage(let m), .failure(let m), .io(let m): return m
        }
    }

    /// A verification failure as packtool reports it, by its code's outcome: a refusal of the input exits 1
    /// ("refused: …"); a failure to carry the operation out here — a write error, a full disk, permissions, the network
    /// — exits 2 ("failed: …"), as do a malformed request ("bad request: …") and a cancelled operation ("cancelled: …");
    /// all end with the failure's code.
    init(_ f: VerificationFailure, context: String = "") {
        let text = f.message + " [\(f.code)]" + context
        switch f.kind.outcome {
        case .refused: self = .failure("refused: " + text)
        case .io: self = .io("failed: " + text)
        case .request: self = .io("bad request: " + text)
        case .cancelled: self = .io("cancelled: " + text)
        }
    }
}

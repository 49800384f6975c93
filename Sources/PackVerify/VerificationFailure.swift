/// Why a document, archive or install was not accepted: a stable code and a sentence saying what was wrong.
public struct VerificationFailure: Error, Equatable, CustomStringConvertible, Sendable {
    public var code: String
    public var message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}

/// A document that could not be read or decoded, naming the file and the problem.
public struct ModelError: Error, Equatable, CustomStringConvertible {
    /// The path of the document that failed.
    public var file: String
    /// What is wrong with it, naming the field where there is one.
    public var message: String

    /// An error about the document at `file`.
    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

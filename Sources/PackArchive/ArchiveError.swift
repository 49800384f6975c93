/// A failure writing an archive, naming the archive (or the source file) it concerns.
public struct ArchiveError: Error, CustomStringConvertible, Equatable {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}

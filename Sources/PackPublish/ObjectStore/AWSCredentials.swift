#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An access key, its secret and, for temporary credentials, a session token. The secret never appears in a
/// description, so printing an error or a value can never leak it.
public struct AWSCredentials: Sendable, CustomStringConvertible {
    public let accessKeyID: String
    public let secretAccessKey: String
    public let sessionToken: String?

    public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }

    public var description: String { "access key \(accessKeyID) (secret withheld)" }
}


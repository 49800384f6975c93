#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where an object store is and who is talking to it, read the way the AWS tools read it: the environment
/// (`AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_REGION` / `AWS_DEFAULT_REGION`,
/// `AWS_ENDPOINT_URL_S3` / `AWS_ENDPOINT_URL`, `AWS_PROFILE`) first, then the profile in `~/.aws/credentials` and
/// `~/.aws/config` (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_CONFIG_FILE` move them). Command-line flags override both.
public struct ObjectStoreSettings: Sendable {
    public var credentials: AWSCredentials
    public var region: String
    /// `https://<account>.r2.cloudflarestorage.com`, `http://127.0.0.1:8333`…; nil: AWS's own `s3.REGION.amazonaws.com`.
    public var endpoint: String?
    /// `bucket.host/key` (virtual-hosted, AWS's default) or `host/bucket/key` (path style, what most other stores want).
    public var pathStyle: Bool
    /// Which profile the settings came from (for messages).
    public var profile: String

    public init(credentials: AWSCredentials, region: String, endpoint: String?, pathStyle: Bool, profile: String) {
        self.credentials = credentials
        self.region = region
        self.endpoint = endpoint
        self.pathStyle = pathStyle
        self.profile = profile
    }

    /// Reads the settings; `overrides` are the command line's (`region`, `endpoint`, `profile`, `pathStyle`).
    public static func resolve(environment: [String: String], home: String?, region: String? = nil, endpoint: String? = nil,
                               profile: String? = nil, pathStyle: Bool? = nil) throws -> ObjectStoreSettings {
        let profileName = profile ?? environment["AWS_PROFILE"] ?? "default"
        let credentialsFile = environment["AWS_SHARED_CREDENTIALS_FILE"] ?? home.map { $0 + "/.aws/credentials" }
        let configFile = environment["AWS_CONFIG_FILE"] ?? home.map { $0 + "/.aws/config" }
        let stored = try credentialsFile.map { try INIFile.read($0)?.section(profileName) ?? [:] } ?? [:]
        let config = try configFile.map { try INIFile.read($0)?.section(profileName == "default" ? "default" : "profile \(profileName)") ?? [:] } ?? [:]
        // The whole set comes from one provider, as the AWS CLI takes it: the environment when it holds both the key id
        // and the secret (and no --profile was given), otherwise the profile — never a key from one and a token from
        // the other.
        let id: String, secret: String, token: String?
        if profile == nil, let envID = environment["AWS_ACCESS_KEY_ID"], !envID.isEmpty,
           let envSecret = environment["AWS_SECRET_ACCESS_KEY"], !envSecret.isEmpty {
            (id, secret, token) = (envID, envSecret, environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        } else if let fileID = stored["aws_access_key_id"] ?? config["aws_access_key_id"],
                  let fileSecret = stored["aws_secret_access_key"] ?? config["aws_secret_access_key"] {
            (id, secret, token) = (fileID, fileSecret, stored["aws_session_token"] ?? config["aws_session_token"])
        } else {
            throw PublishError.objectStore("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or add profile \(profileName) to \(credentialsFile ?? "~/.aws/credentials")")
        }
        let region = region ?? environment["AWS_REGION"] ?? environment["AWS_DEFAULT_REGION"] ?? config["region"] ?? "us-east-1"
        let endpoint = endpoint ?? environment["AWS_ENDPOINT_URL_S3"] ?? environment["AWS_ENDPOINT_URL"] ?? config["endpoint_url"]
        let style = pathStyle ?? config["addressing_style"].map { $0 == "path" } ?? (endpoint != nil)
        return ObjectStoreSettings(credentials: AWSCredentials(accessKeyID: id, secretAccessKey: secret, sessionToken: token),
                                   region: region, endpoint: endpoint, pathStyle: style, profile: profileName)
    }
}

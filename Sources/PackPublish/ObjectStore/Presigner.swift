#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackModel

/// Presigned GET URLs: a private object handed to a partner, a support case or an updater for a limited time.
public enum Presigner {
    /// The longest a SigV4 presigned URL may live (S3's limit).
    public static let maxExpiry = 7 * 86_400

    public static func url(for location: S3Location, settings: ObjectStoreSettings, expires: Int, at date: Date = Date()) throws -> String {
        guard (1...maxExpiry).contains(expires) else { throw PublishError.objectStore("--expires must be between 1 second and 7 days (S3's limit)") }
        guard !location.key.isEmpty, !location.key.hasSuffix("/") else { throw PublishError.objectStore("\(location): name an object, not a bucket or prefix") }
        let endpoint = try ObjectStoreEndpoint(settings: settings)
        let signer = SigV4(credentials: settings.credentials, region: settings.region)
        let query = signer.presignedQuery(path: endpoint.path(bucket: location.bucket, key: location.key), host: endpoint.hostHeader(bucket: location.bucket),
                                          expires: expires, at: date)
        let encoded = query.map { SigV4.encode($0.name, keepingSlashes: false) + "=" + SigV4.encode($0.value, keepingSlashes: false) }.joined(separator: "&")
        return endpoint.url(bucket: location.bucket, key: location.key, query: encoded)
    }
}

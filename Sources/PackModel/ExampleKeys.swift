import PackCrypto

/// The public example keys in keys-example/. They are in the repository for everyone to read, so anything they sign
/// proves nothing; packtool warns whenever it signs with one of them.
public enum ExampleKeys {
    /// Key ids of the example keys (hex SHA-256 of each raw public key).
    public static let keyIDs: Set<String> = [
    ]

    public static func isExample(_ key: Ed25519PublicKey) -> Bool { keyIDs.contains(key.keyID) }
}

import PackCrypto

/// The public example keys in keys-example/ (tool-only: here, not in a module an app links). They are in the repository for everyone to read, so anything they sign
/// proves nothing; packtool warns whenever it signs with one of them.
public enum ExampleKeys {
    /// Key ids of the example keys (hex SHA-256 of each raw public key).
    public static let keyIDs: Set<String> = [
        "f28887d15791991cf9ff67457b3f951ae91d0445d96cc322b75193d44ca2eb6d",  // keys-example/root
        "8c0a35b9ebfb624244541750dd0782b63cb07a6b80289b68effc0b959eec1a8b",  // keys-example/manifest
        "52b60e2cba87ed018243d16d783d7a4ea464e7864d68fda3acd12a5fb44a65de",  // keys-example/index
        "2f1f89452574844f49be64efc36e5e5b36ea62fa3686abc3f321be85d6eec1e8",  // keys-example/grant
        "0855b22cc2dcc9b6a573c88aad74aa996ffb1935fc568c627c5121ed4115718b",  // keys-example/historian
    ]

    public static func isExample(_ key: Ed25519PublicKey) -> Bool { keyIDs.contains(key.keyID) }
}

import PackCrypto

/// PEM for public key files: publishers read and write them; a client only ever sees raw keys inside signed roots.
extension Ed25519PublicKey {
    /// Reads a PEM SPKI public key, as `openssl pkey -pubout` writes it, with the same checks as the raw form.
    public init(pemRepresentation: String) throws {
        let key = try EVPKey.pem(pemRepresentation, isPrivate: false)
        try self.init(rawRepresentation: key.rawBytes(isPrivate: false))
    }

    /// The PEM SPKI encoding (`-----BEGIN PUBLIC KEY-----`).
    public var pemRepresentation: String {
        // A key that was accepted on the way in always re-encodes; failure would be an OpenSSL fault.
        (try? EVPKey.raw(rawRepresentation, isPrivate: false).pem(isPrivate: false)) ?? ""
    }
}

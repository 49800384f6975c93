import PackAuthoring
import PackCrypto
import PackModel
import PackSigning

/// Signing a sign-off is a reviewer's act on the publisher side; PackModel, which the client embeds, only decodes them.
extension Signoff {
    /// Signs this sign-off into a DSSE envelope.
    public func envelope(signedWith key: Ed25519PrivateKey) throws -> DSSEEnvelope {
        try DSSEEnvelope(signing: payloadBytes(), as: Self.payloadType, with: [key])
    }
}

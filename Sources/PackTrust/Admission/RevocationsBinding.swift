#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackCrypto
import PackModel

/// The link between an index and the revocation list it binds, judged once for every reader: the client taking an
/// index in (`Trust.accept`), `packtool verify`, `status` and every index writer checking what a fresh client would
/// make of its index. The list's bytes must be the bound size and SHA-256, a revocation list signed by a threshold of
/// `root`'s grant role, and of the bound version — so a list signed by a grant key the root has retired (a rotation
/// away from a stolen key) is refused here, by everyone, with the same code (`threshold`).
extension IndexDocument.Revocations {
    /// The list in `data` admitted as the one this binding names, under `root`, with `profile` and `context`'s time
    /// and floors. `data` must already be capped at ``size`` by the reader (it is compared, never trusted).
    public func admit(list data: Data, profile: AdmissionProfile, context: AdmissionContext) throws -> RevocationsDocument {
        try IndexLayout.evaluate(self).require()
        guard size <= SizeCaps.revocations else {
            throw VerificationFailure(.size, "the index binds a revocation list of \(size) bytes, over the \(SizeCaps.revocations)-byte cap")
        }
        guard UInt64(data.count) == size else {
            throw VerificationFailure(.size, "the revocation list is \(data.count) bytes, the index binds \(size)")
        }
        guard SHA256.hexHash(Array(data)) == sha256 else {
            throw VerificationFailure(.hash, "the revocation list does not match the index's SHA-256")
        }
        let list = try SignedDocument().admit(data, as: RevocationsDocument.self, profile: profile, context: context)
        guard list.version == version else {
            throw VerificationFailure(.mixAndMatch, "the file is revocation list version \(list.version), the index binds version \(version)")
        }
        return list
    }
}

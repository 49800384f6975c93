import COpenSSL

/// Owns one `EVP_MD_CTX`, freed in `deinit`: the class box behind the stand-in's value-type hasher (`SHA256`),
/// copied on write (`EVP_MD_CTX_copy_ex`) when shared.
final class DigestContext {
    private let context: OpaquePointer

    init(_ algorithm: OpaquePointer?) {
        guard let ctx = EVP_MD_CTX_new(), EVP_DigestInit_ex(ctx, algorithm, nil) == 1 else { fatalError("EVP_MD_CTX_new failed") }
        context = ctx
    }

    private init(copying other: OpaquePointer) {
        guard let ctx = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(ctx, other) == 1 else { fatalError("EVP_MD_CTX_copy_ex failed") }
        context = ctx
    }

    func copy() -> DigestContext { DigestContext(copying: context) }

    func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        _ = EVP_DigestUpdate(context, base, buffer.count)
    }

    /// The digest so far, from a copy of the context, so this one can go on hashing (CryptoKit's `finalize()` does
    /// not consume the hasher).
    func finalizedCopy(length: Int) -> [UInt8] {
        let finished = copy()
        var out = [UInt8](repeating: 0, count: length)
        var written: UInt32 = 0
        guard EVP_DigestFinal_ex(finished.context, &out, &written) == 1, Int(written) == length else { fatalError("EVP_DigestFinal_ex failed") }
        return out
    }

    deinit { EVP_MD_CTX_free(context) }
}

import COpenSSL
import PackCrypto
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one OpenSSL `EVP_PKEY` and frees it in `deinit`; the only place key handles live.
final class EVPKey {
    let pointer: OpaquePointer

    init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { EVP_PKEY_free(pointer) }

    /// Wraps `EVP_PKEY_new_raw_private_key` / `EVP_PKEY_new_raw_public_key` for Ed25519.
    static func raw(_ bytes: [UInt8], isPrivate: Bool) throws -> EVPKey {
        guard bytes.count == 32 else {
            throw CryptoError(code: "key.raw-length", message: "an Ed25519 \(isPrivate ? "private" : "public") key is 32 bytes, got \(bytes.count)")
        }
        let made = bytes.withUnsafeBufferPointer { buf in
            isPrivate
                ? EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, buf.baseAddress, 32)
                : EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, buf.baseAddress, 32)
        }
        guard let made else { throw CryptoError.openSSL("key.raw", "not a valid Ed25519 \(isPrivate ? "private" : "public") key") }
        return EVPKey(made)
    }

    /// Wraps `EVP_PKEY_keygen` for a fresh Ed25519 key from OpenSSL's CSPRNG.
    static func generate() throws -> EVPKey {
        guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else { throw CryptoError.openSSL("key.generate", "cannot create a key context") }
        defer { EVP_PKEY_CTX_free(ctx) }
        guard EVP_PKEY_keygen_init(ctx) == 1 else { throw CryptoError.openSSL("key.generate", "cannot initialise key generation") }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen(ctx, &key) == 1, let key else { throw CryptoError.openSSL("key.generate", "key generation failed") }
        return EVPKey(key)
    }

    /// Reads a PEM private (PKCS#8, plain or encrypted) or public (SPKI) key and insists it is Ed25519. An encrypted
    /// key (`-----BEGIN ENCRYPTED PRIVATE KEY-----`, as `openssl pkey -aes256` writes it) needs `passphrase`; without
    /// one it is refused with code `key.passphrase`, and OpenSSL is never left to prompt on a terminal itself.
    static func pem(_ text: String, isPrivate: Bool, passphrase: [UInt8]? = nil) throws -> EVPKey {
        let bytes = Array(text.utf8)
        guard bytes.count < 64 * 1024 else { throw CryptoError(code: "key.pem", message: "PEM key file is implausibly large (\(bytes.count) bytes)") }
        let encrypted = isPrivate && text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----")
        if encrypted && passphrase == nil {
            throw CryptoError(code: "key.passphrase", message: "the key is encrypted; its passphrase is needed")
        }
        // The passphrase reaches OpenSSL through this callback only (NUL-terminated, wiped afterwards); with none the
        // callback refuses, where OpenSSL's default one would prompt on the terminal and fail with its error stack.
        var secret: [CChar] = (passphrase ?? []).map { CChar(bitPattern: $0) } + [0]
        defer { for i in secret.indices { secret[i] = 0 } }
        let callback: @convention(c) (UnsafeMutablePointer<CChar>?, Int32, Int32, UnsafeMutableRawPointer?) -> Int32 = { buffer, size, _, user in
            guard let buffer, let user, size > 0 else { return -1 }
            let given = user.assumingMemoryBound(to: CChar.self)
            let length = min(Int(strlen(given)), Int(size))
            memcpy(buffer, given, length)
            return Int32(length)
        }
        // A memory BIO reads the buffer in place, so the read happens inside the closure: a pointer taken out of
        // withUnsafeBufferPointer may outlive the array (an optimised build released it before the read, and every
        // release `packtool` refused valid keys as "not a PEM … key").
        let read: Result<OpaquePointer?, CryptoError> = bytes.withUnsafeBufferPointer { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                return .failure(CryptoError.openSSL("key.pem", "cannot allocate a memory BIO"))
            }
            defer { BIO_free(bio) }
            return secret.withUnsafeMutableBufferPointer { pass in
                .success(isPrivate ? PEM_read_bio_PrivateKey(bio, nil, callback, encrypted ? UnsafeMutableRawPointer(pass.baseAddress) : nil)
                                   : PEM_read_bio_PUBKEY(bio, nil, callback, nil))
            }
        }
        guard let key = try read.get() else {
            if encrypted {
                ERR_clear_error()
                throw CryptoError(code: "key.passphrase-wrong", message: "the passphrase does not open this key (or the key file is damaged)")
            }
            ERR_clear_error()
            throw CryptoError(code: "key.pem", message: Self.whyNotPEM(text, isPrivate: isPrivate))
        }
        let wrapped = EVPKey(key)
        guard EVP_PKEY_get_id(key) == EVP_PKEY_ED25519 else {
            throw CryptoError(code: "key.algorithm", message: "the key is not Ed25519 (make one with `packtool key generate` or `openssl genpkey -algorithm ed25519`)")
        }
        return wrapped
    }

    /// Why a key file's text is not a key this tool reads, in the user's terms (OpenSSL's error queue names decoder
    /// internals, "DECODER routines::unsupported", that say nothing about what to do).
    static func whyNotPEM(_ text: String, isPrivate: Bool) -> String {
        let kind = isPrivate ? "a PEM PKCS#8 private key (-----BEGIN PRIVATE KEY-----)" : "a PEM public key (-----BEGIN PUBLIC KEY-----)"
        guard let begin = text.firstRange(of: "-----BEGIN ") else {
            return "not \(kind): the file has no -----BEGIN line (is it a passphrase file, or some other file, given where a key belongs?)"
        }
        let label = text[begin.upperBound...].prefix { $0 != "-" && $0 != "\n" }
        if text.contains("Proc-Type: 4,ENCRYPTED") {
            return "an encrypted key in OpenSSL's old format (\(label) with Proc-Type): convert it to encrypted PKCS#8 with "
                + "`openssl pkcs8 -topk8 -v2 aes-256-cbc -in OLD.pem -out NEW.pem` (and it must be an Ed25519 key)"
        }
        guard text.contains("-----END \(label)-----") else {
            return "not \(kind): the \(label) block has no -----END line (the file is cut short: copy it again)"
        }
        if ["RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", "OPENSSH PRIVATE KEY"].contains(String(label)) {
            return "a \(label), not an Ed25519 key (make one with `packtool key generate` or `openssl genpkey -algorithm ed25519`)"
        }
        return "not \(kind): its \(label) block does not decode (damaged, or another kind of key)"
    }

    /// The raw 32-byte public or private part.
    func rawBytes(isPrivate: Bool) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = 32
        let ok = isPrivate
            ? EVP_PKEY_get_raw_private_key(pointer, &out, &length)
            : EVP_PKEY_get_raw_public_key(pointer, &out, &length)
        guard ok == 1, length == 32 else { throw CryptoError.openSSL("key.raw", "cannot read the raw key bytes") }
        return out
    }

    /// Writes the key as PEM: PKCS#8 for a private key — encrypted with `passphrase` when one is given, PBES2 with
    /// PBKDF2-HMAC-SHA256 and AES-256-CBC, exactly what `openssl pkey -aes256` writes and reads — SPKI for a public key.
    func pem(isPrivate: Bool, passphrase: [UInt8]? = nil) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("key.pem", "cannot allocate a memory BIO") }
        defer { BIO_free(bio) }
        var secret: [CChar] = (passphrase ?? []).map { CChar(bitPattern: $0) }
        defer { for i in secret.indices { secret[i] = 0 } }
        let ok: Int32
        if !isPrivate {
            ok = PEM_write_bio_PUBKEY(bio, pointer)
        } else if passphrase != nil {
            guard !secret.isEmpty else { throw CryptoError(code: "key.passphrase", message: "an empty passphrase encrypts nothing") }
            ok = secret.withUnsafeMutableBufferPointer { pass in
                PEM_write_bio_PKCS8PrivateKey(bio, pointer, EVP_aes_256_cbc(), pass.baseAddress, Int32(pass.count), nil, nil)
            }
        } else {
            ok = PEM_write_bio_PrivateKey(bio, pointer, nil, nil, 0, nil, nil)
        }
        guard ok == 1 else { throw CryptoError.openSSL("key.pem", "cannot write the key as PEM") }
        var data: UnsafeMutablePointer<CChar>?
        let count = COpenSSL_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else { throw CryptoError.openSSL("key.pem", "empty PEM output") }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }
}

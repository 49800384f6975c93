/// Stand-in for CryptoKit's `CryptoKitError`, with its documented cases.
/// https://developer.apple.com/documentation/cryptokit/cryptokiterror
public enum CryptoKitError: Error {
    /// The key size is incorrect.
    case incorrectKeySize
    /// The parameter size is incorrect.
    case incorrectParameterSize
    /// The authentication tag or signature is incorrect.
    case authenticationFailure
    /// The underlying library (here libcrypto) reported an error.
    case underlyingCoreCryptoError(error: Int32)
    /// The data could not be wrapped.
    case wrapFailure
    /// The data could not be unwrapped.
    case unwrapFailure
    /// A parameter is invalid.
    case invalidParameter
}

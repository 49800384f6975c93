/// The client library's version, reported through the C ABI and `packtool --version`.
public enum PackVerifyVersion {
    /// The semantic version of this client library.
    public static let string = "0.1.0"
}

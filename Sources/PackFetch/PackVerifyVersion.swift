/// The client library's version, reported through the C ABI and `packtool --version`.
public enum PackVerifyVersion {
    public static let string = "0.1.0"
}

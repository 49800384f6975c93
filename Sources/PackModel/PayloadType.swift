/// DSSE payload types of every signed document. Signatures cover the type, so one kind can never pass as another.
public enum PayloadType {
    public static let root = "application/vnd.packtool.root+json"
    public static let manifest = "application/vnd.packtool.manifest+json"
    public static let index = "application/vnd.packtool.index+json"
    public static let grant = "application/vnd.packtool.grant+json"
    public static let delta = "application/vnd.packtool.delta+json"
    /// The revocation list (grant role), bound by the index.
    public static let revocations = "application/vnd.packtool.revocations+json"
    public static let signoff = Signoff.payloadType
}

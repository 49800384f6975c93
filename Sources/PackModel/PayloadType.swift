/// DSSE payload types of every signed document. Signatures cover the type, so one kind can never pass as another.
public enum PayloadType {
    /// A root (``RootDocument``), signed by the previous and the new root keys.
    public static let root = "application/vnd.packtool.root+json"
    /// A pack manifest (``Manifest``), manifest role.
    public static let manifest = "application/vnd.packtool.manifest+json"
    /// The index (``IndexDocument``), index role.
    public static let index = "application/vnd.packtool.index+json"
    /// A long access code's grant (``GrantDocument``), grant role.
    public static let grant = "application/vnd.packtool.grant+json"
    /// A short access code's signature (`CompactGrant`): claims, product and device, not a JSON document.
    public static let grantCode = CompactGrant.payloadType
    /// A scene delta (``DeltaDocument``), manifest role.
    public static let delta = "application/vnd.packtool.delta+json"
    /// The revocation list (grant role), bound by the index.
    public static let revocations = "application/vnd.packtool.revocations+json"
    /// A historian's sign-off of a scene (PackAuthoring's `Signoff`).
    public static let signoff = "application/vnd.packtool.signoff+json"
}

import PackModel

/// One kind of signed document: the payload type its envelope must carry (so an access code's signature can never
/// pass as a manifest), the role whose threshold must sign it, and the cap on its size (a document is read whole
/// before it is verified). Every reader names a kind instead of spelling the type and role again, so the pairs
/// cannot drift apart.
public struct DocumentKind: Hashable, Sendable, CustomStringConvertible {
    /// What errors call it ("manifest").
    public let name: String
    /// The DSSE payload type the envelope must carry (`payload-type` otherwise).
    public let payloadType: String
    /// The root role whose threshold of keys must sign (``PackModel/RootDocument/Role``).
    public let role: String
    /// Bytes read at most before the document is refused (`size`), from ``SizeCaps``.
    public let sizeCap: UInt64

    init(_ name: String, _ payloadType: String, _ role: String, _ sizeCap: UInt64) {
        self.name = name
        self.payloadType = payloadType
        self.role = role
        self.sizeCap = sizeCap
    }

    public var description: String { name }

    /// A root, signed by the root role.
    public static let root = DocumentKind("root", PayloadType.root, RootDocument.Role.root, SizeCaps.root)
    /// The index, signed by the index role.
    public static let index = DocumentKind("index", PayloadType.index, RootDocument.Role.index, SizeCaps.index)
    /// A pack manifest, signed by the manifest role.
    public static let manifest = DocumentKind("manifest", PayloadType.manifest, RootDocument.Role.manifest, SizeCaps.manifest)
    /// A delta's signed document is written by the manifest role: it is part of a release, like the manifest.
    public static let delta = DocumentKind("delta", PayloadType.delta, RootDocument.Role.manifest, SizeCaps.deltaDocument)
    /// A long (`PTG1.`) access code's grant, signed by the grant role.
    public static let grant = DocumentKind("access code", PayloadType.grant, RootDocument.Role.grant, SizeCaps.grant)
    /// Revocations undo grants, so the grant role signs them (DESIGN.md §8.3).
    public static let revocations = DocumentKind("revocation list", PayloadType.revocations, RootDocument.Role.grant, SizeCaps.revocations)

    /// Every kind, in the order the documentation lists them.
    public static let all: [DocumentKind] = [root, index, manifest, delta, grant, revocations]
}

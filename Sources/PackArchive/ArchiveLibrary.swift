import CArchive

/// Facts about the linked libarchive. The deterministic tar writer and the general reader land with the publishing
/// issue (docs/architecture.md); this module is the only one that will hold libarchive handles.
public enum ArchiveLibrary {
    /// libarchive's own version string, e.g. "libarchive 3.6.2 zlib/1.2.13 ...".
    public static var versionString: String { String(cString: archive_version_details()) }
}

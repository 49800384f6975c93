import PackModel

/// The bytes of an archive being installed, read by offset: a complete file (`ReadOnlyFile`) or a download still
/// arriving (`GrowingArchive`, whose reads wait for the bytes they ask for; fewer than one byte before the end only
/// when they will never come). `size` is the archive's whole size — for a download, the size the signed index pins —
/// so every bound the tar reader checks is checked against it.
typealias ArchiveBytes = OffsetReadable

import PackModel

extension ArchiveLayout {
    /// Holds a whole archive's framing to the layout — its size, every header byte, every padding byte and the
    /// trailer — reading only those regions of `archive`; the files' contents are the caller's to hash (an install
    /// hashes them as it writes them). What a reader that has the archive at hand composes (an install from a local
    /// file or a whole-file download) so that it refuses exactly what a phone's streamed install and `packtool verify`
    /// refuse (`Check`), with the same codes: `archive-header` (a header or padding byte), `archive-trailer` (a trailer
    /// byte, or bytes past the layout's size), `archive-truncated` (fewer bytes than the layout's size).
    public func checkFraming(of archive: OffsetReadable, name: String) throws {
        func read(_ offset: UInt64, _ count: Int) throws -> [UInt8] {
            guard let bytes = archive.bytes(at: offset, count: count) else {
                throw VerificationFailure(.archiveTruncated, "\(name): the archive ends before byte \(offset + UInt64(count)) of the \(size) the signed manifest dictates")
            }
            return bytes
        }
        guard archive.size >= size else {
            throw VerificationFailure(.archiveTruncated, "\(name): the archive ends after \(archive.size) of \(size) bytes")
        }
        for entry in entries {
            try read(entry.start, entry.headerSize).withUnsafeBytes { try entry.compareHeader(from: 0, with: $0, at: entry.start, name: name) }
            let padding = TarEncoding.padding(size: entry.size)
            if padding > 0 { try read(entry.dataEnd, padding).withUnsafeBytes { try entry.comparePadding($0, name: name) } }
        }
        try read(size - UInt64(TarEncoding.trailerBytes), TarEncoding.trailerBytes).withUnsafeBytes { try Self.compareTrailer($0, name: name) }
        guard archive.size == size else {
            throw VerificationFailure(.archiveTrailer, "\(name): data after the end-of-archive marker (the signed manifest dictates \(size) bytes)")
        }
    }
}

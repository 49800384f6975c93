import PackModel

/// The part of an install that reads the archive's headers in order: each entry must be listed in the manifest,
/// with its signed size, at a safe path, and the data may not exceed what the manifest declares; each admitted entry
/// is queued for the extraction workers at once, so with a download still arriving files are written and hashed while
/// the next ones come in. One thread runs it; the counts are read after it returns.
final class HeaderScan: @unchecked Sendable {
    private var reader: StrictTarReader
    private var expected: [[UInt8]: Manifest.File]
    private let declared: UInt64
    private(set) var written: UInt64 = 0
    private(set) var count = 0
    /// Told how far into the archive the headers have been read (the install's progress through its bytes).
    var onPosition: ((UInt64) -> Void)?

    init(reader: StrictTarReader, expected: [[UInt8]: Manifest.File], declared: UInt64) {
        self.reader = reader
        self.expected = expected
        self.declared = declared
    }

    func run(into writer: StagingWriter) throws {
        var safety = PathSafety()
        while let header = try reader.next() {
            try safety.admit(header.path)
            guard let file = expected.removeValue(forKey: Array(header.path.utf8)) else {
                throw VerificationFailure(.archiveExtra, "\(header.path) is not in the manifest")
            }
            // A header whose size field is not the signed size differs from the header the layout dictates:
            // `archive-header`, as a phone's streamed install and `packtool verify` report it (`ArchiveLayout`).
            guard header.size == file.size else {
                throw VerificationFailure(.archiveHeader, "\(header.path) is \(header.size) bytes in the archive's header, the signed manifest says \(file.size)")
            }
            written = try Numbers.add(written, header.size, "the archive's total size")
            guard written <= declared else { throw VerificationFailure(.archiveSize, "the archive holds more data than the manifest declares") }
            try writer.add(header, of: reader, path: header.path, expected: file)
            count += 1
            onPosition?(header.offset + header.size)
        }
        if let missing = expected.keys.map({ String(decoding: $0, as: UTF8.self) }).sorted().first {
            throw VerificationFailure(.archiveMissing, "\(missing) is listed in the manifest but not in the archive")
        }
    }
}

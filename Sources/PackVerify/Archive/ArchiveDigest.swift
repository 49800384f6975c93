import PackCrypto
import PackModel

/// The SHA-256 of a whole archive, read in order on a thread of its own beside the extraction: the signed index pins
/// it, so the stream an install read (headers, padding and trailer included) is the published archive. (When a
/// download starts again from zero mid-way, this thread and the header scan may read an offset at different moments;
/// the files are still each verified against the signed manifest.)
final class ArchiveDigest: @unchecked Sendable {
    private(set) var hex: String?
    private static let pieceBytes = 256 << 10

    func hash(_ source: ArchiveBytes, name: String) throws {
        let hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceBytes, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        while offset < source.size {
            let want = Int(min(UInt64(buffer.count), source.size - offset))
            let n = source.read(at: offset, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            guard n > 0 else { throw VerificationFailure(.archiveTruncated, "\(name): the archive ends after \(offset) of \(source.size) bytes") }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += UInt64(n)
        }
        hex = Hex.encode(hasher.finalize())
    }
}

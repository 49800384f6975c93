import PackModel

/// The bytes of an archive being installed, read by offset: a complete file (`ReadOnlyFile`) or a download still
/// arriving (`GrowingArchive`, whose reads wait for the bytes they ask for). `size` is the archive's whole size —
/// for a download, the size the signed index pins — so every bound the tar reader checks is checked against it.
protocol ArchiveBytes: AnyObject {
    var size: UInt64 { get }
    /// Up to `destination.count` bytes at `offset`; how many were read (0 at the end), -1 on an error. Never fewer
    /// than one byte before the end unless the bytes will never come (a failed download).
    func read(at offset: UInt64, into destination: UnsafeMutableRawBufferPointer) -> Int
}

extension ArchiveBytes {
    /// Exactly `count` bytes at `offset`, or nil if the archive ends first or cannot be read.
    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let n = out.withUnsafeMutableBytes { read(at: offset + UInt64(done), into: UnsafeMutableRawBufferPointer(rebasing: $0[done...])) }
            guard n > 0 else { return nil }
            done += n
        }
        return out
    }
}

extension ReadOnlyFile: ArchiveBytes {}

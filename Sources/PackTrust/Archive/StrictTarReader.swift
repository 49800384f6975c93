#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif
import PackFiles
import PackModel

/// The one tar reader of published archives: the client's, `packtool verify`'s and the publisher's, so an archive or a
/// delta one of them accepts the others accept too (it lives in PackTrust for that; libarchive, which `verify` used to
/// read deltas with, accepted entries a phone refuses). Pure Swift, accepting only what packtool writes — ustar
/// headers, pax `x` headers with path/size/time/owner records, and regular files — and refusing everything else
/// (links, devices, directories, GNU and global headers, bad checksums, sizes that disagree, data after the end).
/// libarchive is not public API on iOS and its many formats are attack surface a client does not need (DESIGN.md §2).
public struct StrictTarReader {
    /// One archive entry as the reader accepted it: a regular file.
    public struct Header: Equatable, Sendable {
        /// The entry's path inside the archive (from the ustar name and prefix, or the pax `path`).
        public var path: String
        /// The entry's data size in bytes.
        public var size: UInt64
        /// Where the file's data starts in the archive (its end, `offset + size`, is checked to lie inside it).
        public var offset: UInt64
    }

    /// The archive, read by offset; the installer's workers read entries' data from it in parallel. A download still
    /// arriving (`GrowingArchive`) is read the same way: each read waits for its bytes.
    package let file: OffsetReadable
    private let fileSize: UInt64
    private var position: UInt64 = 0
    private var pendingData: UInt64 = 0
    private var pendingPadding: UInt64 = 0
    private var finished = false
    /// The archive's path, for messages.
    public let path: String

    /// Opens the archive at `url` for reading entry by entry, named `name` in messages (its path when nil).
    /// - Throws: `VerificationFailure` `archive-open` when it cannot be opened or is not a regular file.
    public init(url: URL, named name: String? = nil) throws {
        let f: ReadOnlyFile
        do { f = try ReadOnlyFile(opening: url.path) } catch { throw VerificationFailure(.archiveOpen, "\(error)") }
        file = f
        fileSize = f.size
        path = name ?? url.path
    }

    /// Every entry's header of the archive at `url`, in order, its data skipped unread: where each file's bytes lie
    /// (the publisher reads its own archive's layout this way, to keep a file's place for the next release's deltas).
    public static func scan(_ url: URL, named name: String? = nil) throws -> [Header] {
        var reader = try StrictTarReader(url: url, named: name)
        var headers: [Header] = []
        while let header = try reader.next() { headers.append(header) }
        return headers
    }

    /// Reads `source`, named `path` in messages.
    package init(source: OffsetReadable, path: String) {
        file = source
        fileSize = source.size
        self.path = path
    }

    private func fail(_ code: VerificationFailure.Code, _ message: String) -> VerificationFailure { VerificationFailure(code, "\(path): \(message)") }

    private mutating func block() throws -> [UInt8] {
        guard position + 512 <= fileSize, let data = file.bytes(at: position, count: 512) else {
            throw fail(.archiveTruncated, "the archive ends in the middle of a header")
        }
        position += 512
        return data
    }

    /// The next file's header, or nil after the end-of-archive marker. Skips any unread data of the previous file.
    public mutating func next() throws -> Header? {
        guard !finished else { return nil }
        if pendingData + pendingPadding > 0 {
            position += pendingData + pendingPadding
            pendingData = 0
            pendingPadding = 0
        }
        var paxPath: String?
        var paxSize: UInt64?
        while true {
            let h = try block()
            if h.allSatisfy({ $0 == 0 }) {
                // End of archive: a second zero block, then nothing but zero padding.
                let second = try block()
                guard second.allSatisfy({ $0 == 0 }) else { throw fail(.archiveTrailer, "data after the end-of-archive marker") }
                while position < fileSize {
                    let n = Int(min(65_536, fileSize - position))
                    guard let rest = file.bytes(at: position, count: n) else { throw fail(.archiveTruncated, "the archive ends inside its trailer") }
                    guard rest.allSatisfy({ $0 == 0 }) else { throw fail(.archiveTrailer, "data after the end-of-archive marker") }
                    position += UInt64(n)
                }
                finished = true
                return nil
            }
            guard Array(h[257..<263]) == Array("ustar\0".utf8), Array(h[263..<265]) == Array("00".utf8) else {
                throw fail(.archiveFormat, "not a POSIX ustar header at offset \(position - 512)")
            }
            guard let checksum = Self.octal(h[148..<156]) else { throw fail(.archiveHeader, "unreadable header checksum") }
            let sum = h.enumerated().reduce(UInt64(0)) { $0 + UInt64((148..<156).contains($1.offset) ? 0x20 : $1.element) }
            guard sum == checksum else { throw fail(.archiveHeader, "header checksum mismatch at offset \(position - 512)") }
            guard let headerSize = Self.octal(h[124..<136]) else { throw fail(.archiveHeader, "unreadable size field") }
            let type = h[156]
            switch type {
            case UInt8(ascii: "x"):
                guard headerSize <= 64 * 1024, position + headerSize <= fileSize, let data = file.bytes(at: position, count: Int(headerSize)) else {
                    throw fail(.archivePax, "pax header too large or truncated")
                }
                position += headerSize
                let padding = (512 - headerSize % 512) % 512
                position += padding
                for (key, value) in try paxRecords(data) {
                    switch key {
                    case "path": paxPath = value
                    case "size":
                        guard let s = UInt64(value) else { throw fail(.archivePax, "pax size \"\(value)\" is not a number") }
                        paxSize = s
                    case "mtime", "atime", "ctime", "uid", "gid", "uname", "gname": continue
                    default: throw fail(.archivePax, "pax record \"\(key)\" is not accepted")
                    }
                }
                continue
            case UInt8(ascii: "0"), 0:
                var size = headerSize
                if let paxSize {
                    // pax may carry the size only when it differs from the header's octal field because it cannot fit.
                    guard headerSize == 0 || headerSize == paxSize else {
                        throw fail(.archivePax, "pax size \(paxSize) disagrees with the header size \(headerSize)")
                    }
                    size = paxSize
                }
                let name = paxPath ?? Self.joinedName(h)
                guard size <= fileSize - position else { throw fail(.archiveTruncated, "\(name) claims \(size) bytes, more than the archive holds") }
                pendingData = size
                pendingPadding = (512 - size % 512) % 512
                return Header(path: name, size: size, offset: position)
            case UInt8(ascii: "1"): throw fail(.archiveLink, "\(Self.joinedName(h)) is a hard link")
            case UInt8(ascii: "2"): throw fail(.archiveLink, "\(Self.joinedName(h)) is a symbolic link")
            case UInt8(ascii: "3"), UInt8(ascii: "4"): throw fail(.archiveDevice, "\(Self.joinedName(h)) is a device node")
            case UInt8(ascii: "5"): throw fail(.archiveDirectory, "\(Self.joinedName(h)) is a directory entry")
            default: throw fail(.archiveType, "entry type '\(Character(UnicodeScalar(type)))' is not accepted")
            }
        }
    }

    /// Streams the current file's data in pieces of at most 256 KiB, exactly its declared size, through one buffer
    /// no larger than the file (signed documents are small; the installer reads bulk data by offset, see
    /// `StagingWriter`).
    public mutating func read(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard pendingData > 0 else { return skipPadding() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(min(pendingData, 256 << 10)), alignment: 16)
        defer { buffer.deallocate() }
        while pendingData > 0 {
            let want = Int(min(pendingData, UInt64(buffer.count)))
            let n = file.read(at: position, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]))
            guard n > 0 else { throw fail(.archiveTruncated, "the archive ends inside a file") }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            pendingData -= UInt64(n)
            position += UInt64(n)
        }
        skipPadding()
    }

    private mutating func skipPadding() {
        if pendingPadding > 0 {
            position += pendingPadding
            pendingPadding = 0
        }
    }

    static func octal(_ field: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var seen = false
        for b in field {
            if b == 0 || b == 0x20 { if seen { break } else { continue } }
            guard b >= 0x30 && b <= 0x37, value < UInt64.max >> 3 else { return nil }
            value = value << 3 | UInt64(b - 0x30)
            seen = true
        }
        return seen ? value : 0
    }

    static func joinedName(_ h: [UInt8]) -> String {
        func string(_ r: Range<Int>) -> String { String(decoding: h[r].prefix { $0 != 0 }, as: UTF8.self) }
        let name = string(0..<100), prefix = string(345..<500)
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    private func paxRecords(_ data: [UInt8]) throws -> [(String, String)] {
        var out: [(String, String)] = []
        var i = 0
        while i < data.count {
            var j = i
            while j < data.count && data[j] != 0x20 { j += 1 }
            guard j < data.count, j - i <= 8, let length = Int(String(decoding: data[i..<j], as: UTF8.self)), length > j - i + 2, i + length <= data.count,
                  data[i + length - 1] == 0x0A else { throw fail(.archivePax, "malformed pax record") }
            let record = data[(j + 1)..<(i + length - 1)]
            guard let eq = record.firstIndex(of: UInt8(ascii: "=")) else { throw fail(.archivePax, "malformed pax record") }
            out.append((String(decoding: record[record.startIndex..<eq], as: UTF8.self), String(decoding: record[(eq + 1)...], as: UTF8.self)))
            i += length
        }
        return out
    }
}

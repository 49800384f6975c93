#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackFiles

/// Random-access reads from a file or from memory, counting every byte read so lint can show it reads only the
/// boxes it needs (never a whole plate or story).
public final class ByteSource {
    public let size: UInt64
    /// Bytes returned by `read` so far.
    public private(set) var bytesRead: UInt64 = 0
    private let fd: Int32
    private let memory: [UInt8]

    public init(fileAt url: URL) throws {
        // The one non-blocking regular-file open (PackFiles): a FIFO named like a plate is refused, not waited on.
        do { (fd, size) = try RegularFile.openForReading(url.path, path: url.path) } catch let error as FileError {
            throw ByteSourceError(message: error.description)
        }
        memory = []
    }

    public init(bytes: [UInt8]) {
        fd = -1
        memory = bytes
        size = UInt64(bytes.count)
    }

    deinit { if fd >= 0 { close(fd) } }

    /// Reads exactly `count` bytes at `offset`, or nil when the range is outside the source or the read fails.
    public func read(at offset: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
        if count == 0 { return [] }
        if fd >= 0 {
            var data = [UInt8](repeating: 0, count: count)
            var done = 0
            while done < count {
                let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, count - done, off_t(offset) + off_t(done)) }
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return nil }
                done += n
            }
            bytesRead += UInt64(count)
            return data
        }
        bytesRead += UInt64(count)
        return Array(memory[Int(offset)..<Int(offset) + count])
    }
}

/// Big-endian field reads over a byte array, returning nil instead of trapping when the data runs out.
struct FieldReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - index }

    mutating func u8() -> UInt8? {
        guard index < bytes.count else { return nil }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> UInt16? { uint(2).map { UInt16($0) } }
    mutating func u32() -> UInt32? { uint(4).map { UInt32($0) } }
    mutating func u64() -> UInt64? { uint(8) }

    mutating func uint(_ n: Int) -> UInt64? {
        guard n <= remaining else { return nil }
        var v: UInt64 = 0
        for k in 0..<n { v = v << 8 | UInt64(bytes[index + k]) }
        index += n
        return v
    }

    mutating func fourCC() -> String? {
        guard remaining >= 4 else { return nil }
        defer { index += 4 }
        return FourCC.string(bytes[index..<index + 4])
    }

    mutating func skip(_ n: Int) -> Bool {
        guard n >= 0, n <= remaining else { return false }
        index += n
        return true
    }

    /// A NUL-terminated UTF-8 string (or the rest of the data when unterminated).
    mutating func cString() -> String {
        let start = index
        while index < bytes.count && bytes[index] != 0 { index += 1 }
        let s = String(decoding: bytes[start..<index], as: UTF8.self)
        if index < bytes.count { index += 1 }
        return s
    }
}

enum FourCC {
    /// Box types are four bytes; printable ones read as text, others as escaped hex so messages stay readable.
    static func string<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        return bytes.map { $0 >= 0x20 && $0 < 0x7F ? String(UnicodeScalar($0)) : "\\x\(NumberText.hexByte($0))" }.joined()
    }
}

/// A media file that cannot be opened for probing.
public struct ByteSourceError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

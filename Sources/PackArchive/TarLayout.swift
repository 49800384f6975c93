#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import PackModel

/// Where each entry's data lies in a tar that packtool wrote (ustar headers, with pax `x` headers for long or
/// non-ASCII names). Reads only the 512-byte headers, seeking over the data, so indexing a large archive is cheap.
public enum TarLayout {
    public struct Entry: Equatable, Sendable {
        public var path: String
        public var offset: UInt64
        public var size: UInt64
    }

    public static func scan(_ url: URL) throws -> [Entry] {
        let file: ReadOnlyFile
        do { file = try ReadOnlyFile(opening: url.path) } catch { throw ArchiveError("\(error)") }
        let fileSize = file.size
        var entries: [Entry] = []
        var position: UInt64 = 0
        var paxPath: String?
        var paxSize: UInt64?
        while position + 512 <= fileSize {
            guard let h = file.bytes(at: position, count: 512) else { throw ArchiveError("\(url.path): truncated header at \(position)") }
            if h.allSatisfy({ $0 == 0 }) { break }
            guard let size = paxSize ?? octal(h[124..<136]) else { throw ArchiveError("\(url.path): bad size field at \(position)") }
            let type = h[156]
            let dataOffset = position + 512
            let padded = (size + 511) / 512 * 512
            guard dataOffset + padded <= fileSize else { throw ArchiveError("\(url.path): entry at \(position) runs past the end") }
            switch type {
            case UInt8(ascii: "x"):
                guard size <= 1 << 20 else { throw ArchiveError("\(url.path): pax header too large") }
                guard let data = file.bytes(at: dataOffset, count: Int(size)) else { throw ArchiveError("\(url.path): truncated pax header at \(position)") }
                let records = paxRecords(data)
                paxPath = records["path"]
                paxSize = records["size"].flatMap { UInt64($0) }
                position = dataOffset + padded
                continue
            case UInt8(ascii: "0"), 0:
                let name = paxPath ?? joinedName(h)
                entries.append(Entry(path: name, offset: dataOffset, size: size))
            default:
                break
            }
            paxPath = nil
            paxSize = nil
            position = dataOffset + padded
        }
        return entries
    }

    static func octal(_ field: ArraySlice<UInt8>) -> UInt64? {
        var value: UInt64 = 0
        var seen = false
        for b in field {
            if b == 0 || b == 0x20 { if seen { break } else { continue } }
            guard b >= 0x30 && b <= 0x37 else { return nil }
            value = value << 3 | UInt64(b - 0x30)
            seen = true
        }
        return seen ? value : nil
    }

    static func string(_ field: ArraySlice<UInt8>) -> String {
        String(decoding: field.prefix { $0 != 0 }, as: UTF8.self)
    }

    static func joinedName(_ h: [UInt8]) -> String {
        let name = string(h[0..<100])
        let prefix = string(h[345..<500])
        return prefix.isEmpty ? name : prefix + "/" + name
    }

    /// pax records: "<length> <key>=<value>\n".
    static func paxRecords(_ data: [UInt8]) -> [String: String] {
        var out: [String: String] = [:]
        var i = 0
        while i < data.count {
            var j = i
            while j < data.count && data[j] != 0x20 { j += 1 }
            guard j < data.count, let length = Int(String(decoding: data[i..<j], as: UTF8.self)), length > 0, i + length <= data.count else { break }
            let record = data[(j + 1)..<(i + length - 1)]
            if let eq = record.firstIndex(of: UInt8(ascii: "=")) {
                out[String(decoding: record[record.startIndex..<eq], as: UTF8.self)] = String(decoding: record[(eq + 1)...], as: UTF8.self)
            }
            i += length
        }
        return out
    }
}

import Foundation
import PackModel

/// Crafts tar bytes entry by entry, including the hostile ones no honest writer makes: links, devices, traversal
/// names, pax records that lie, data after the end. Headers get valid checksums unless a test breaks them.
struct TarBuilder {
    private(set) var bytes: [UInt8] = []

    mutating func header(_ name: String, size: Int, type: UInt8 = UInt8(ascii: "0"), link: String = "", corruptChecksum: Bool = false) {
        var h = [UInt8](repeating: 0, count: 512)
        func put(_ s: String, _ at: Int, _ len: Int) { for (i, b) in Array(s.utf8).prefix(len).enumerated() { h[at + i] = b } }
        put(name, 0, 100)
        put("0000644", 100, 8)
        put("0000000", 108, 8)
        put("0000000", 116, 8)
        put(String(format: "%011o", size), 124, 12)
        put("00000000000", 136, 12)
        h[156] = type
        put(link, 157, 100)
        put("ustar\0", 257, 6)
        put("00", 263, 2)
        for i in 148..<156 { h[i] = 0x20 }
        var sum = h.reduce(0) { $0 + Int($1) }
        if corruptChecksum { sum += 1 }
        put(String(format: "%06o\0 ", sum), 148, 8)
        bytes += h
    }

    mutating func data(_ content: [UInt8]) {
        bytes += content
        bytes += [UInt8](repeating: 0, count: (512 - content.count % 512) % 512)
    }

    mutating func file(_ name: String, _ content: [UInt8]) {
        header(name, size: content.count)
        data(content)
    }

    /// An entry exactly as the publisher writes it (`TarEncoding`'s header, the manifest's created time as mtime):
    /// what an honest archive holds, byte for byte, in the order the manifest lists its files.
    mutating func entry(_ path: String, _ content: [UInt8], mtime: Int64) {
        bytes += TarEncoding.header(path: path, size: UInt64(content.count), mtime: mtime)
        data(content)
    }

    /// A pax extended header carrying `records` for the next entry.
    mutating func pax(_ records: [String: String]) {
        var body: [UInt8] = []
        for (k, v) in records.sorted(by: { $0.key < $1.key }) {
            let rest = " \(k)=\(v)\n"
            var length = rest.utf8.count + 1
            while String(length).count + rest.utf8.count != length { length += 1 }
            body += Array("\(length)\(rest)".utf8)
        }
        header("PaxHeaders/x", size: body.count, type: UInt8(ascii: "x"))
        data(body)
    }

    mutating func end() { bytes += [UInt8](repeating: 0, count: 1024) }
}

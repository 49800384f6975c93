/// What `route export` exported, kept in the sheet so `route import` can tell a cell the author changed from a cell
/// that is stale because scene.json changed after the export (a `lint --fix`, a hand edit).
///
/// It is the last column, `exported`: per row `v1-` and four hex digits per column of `RouteSheet.columns`, in that
/// order, each the low 16 bits of FNV-1a over the stop's id, the column's header and the value exported. A checksum,
/// not a signature: it catches a sheet that is out of date, not one forged. Sorting or moving rows carries it along;
/// an empty cell (or a sheet without the column) imports without the check.
public struct RouteFingerprint: Equatable, Sendable {
    public static let header = "exported"
    static let version = "v1-"

    var hashes: [UInt16]

    /// The fingerprint of one stop's row as exported: `values` in `RouteSheet.columns` order, unescaped.
    public init(id: String, values: [String]) {
        hashes = zip(RouteSheet.columns, values).map { Self.hash(id: id, header: $0.header, value: $1) }
    }

    /// Reads an `exported` cell; nil for one that is not what export writes (edited, or from an older layout).
    public init?(cell: String) {
        let text = cell.trimmedSpaces
        guard text.hasPrefix(Self.version) else { return nil }
        let digits = Array(text.dropFirst(Self.version.count).utf8)
        guard digits.count == 4 * RouteSheet.columns.count else { return nil }
        var hashes: [UInt16] = []
        for start in stride(from: 0, to: digits.count, by: 4) {
            guard let h = UInt16(String(decoding: digits[start..<start + 4], as: UTF8.self), radix: 16) else { return nil }
            hashes.append(h)
        }
        self.hashes = hashes
    }

    /// The cell export writes.
    public var cell: String {
        Self.version + hashes.map { h in
            let hex = String(h, radix: 16)
            return String(repeating: "0", count: 4 - hex.count) + hex
        }.joined()
    }

    /// Whether `value` is what was exported in `header`'s column of stop `id`.
    func exported(_ value: String, id: String, header: String) -> Bool {
        guard let i = RouteSheet.columns.firstIndex(where: { $0.header == header }) else { return false }
        return hashes[i] == Self.hash(id: id, header: header, value: value)
    }

    /// FNV-1a (64-bit) over id, header and value, each ended by a zero byte, folded to 16 bits.
    static func hash(id: String, header: String, value: String) -> UInt16 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for part in [id, header, value] {
            for byte in Array(part.utf8) + [0] { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return UInt16(truncatingIfNeeded: h ^ (h >> 16) ^ (h >> 32) ^ (h >> 48))
    }
}

/// The bytes of a packtool archive other than file content, computed from (path, size, mtime) alone: the publisher
/// writes them and the client can compare an archive against them byte for byte (DESIGN.md §8.6, docs/formats.md
/// "Pack archive").
///
/// The bytes are those libarchive wrote for packtool until December 2026 (3.6.2 as Debian 12 ships it, with the
/// CVE-2025-5917 fix; `pax_restricted`, every entry a regular file with mode 0644, owner 0:0 with empty names, one
/// mtime), so archives published before the switch are authenticated by the same rules. Each choice below is
/// libarchive's, reproduced literally, including the ones no reader needs (the `PaxHeader` name of the `x` entry, the
/// `000000 ` device fields of a regular file, the 11-digit octal size with a trailing space). A size libarchive could
/// not take (over 2^63 - 1) is written the same way, as an unsigned base-256 number.
///
/// Pure Swift and no Foundation: the client links it too.
public enum TarEncoding {
    /// Every header, every pad and the trailer are made of 512-byte blocks.
    public static let blockSize = 512

    /// What ends an archive: two zero blocks and nothing after them (libarchive pads to no larger record, since the
    /// writer set `bytes_in_last_block` to 1).
    public static let trailerBytes = 1024

    /// The permission bits of every entry, its `x` header included.
    public static let mode: UInt64 = 0o644

    /// Every byte written before an entry's content: for a path or size the ustar fields cannot hold (or an mtime
    /// outside 0 ..< 2^31 - 1), a pax `x` header block, its records and their zero padding; then the entry's own
    /// ustar header block. Always a multiple of 512 bytes.
    ///
    /// Paths are taken as their UTF-8 bytes. Manifests admit only relative, `/`-separated paths without empty, `.` or
    /// `..` components or control characters (PathSafety); other strings still get deterministic bytes, but those are
    /// outside the specification.
    public static func header(path: String, size: UInt64, mtime: Int64) -> [UInt8] {
        let name = Array(path.utf8)
        var records: [UInt8] = []
        var ustarName = name
        // A non-ASCII path, or an ASCII one that neither fits the 100-byte name field nor splits at a `/` into a
        // prefix of at most 155 bytes and a name of at most 100, goes into a `path` record; the ustar header then
        // carries a shortened stand-in (libarchive's build_ustar_entry_name).
        if name.contains(where: { $0 >= 0x80 }) || (name.count > 100 && ustarSplit(name) == nil) {
            records += record("path", name)
            ustarName = shortenedName(name, inserting: nil)
        }
        // libarchive keeps ustar's mtime to what a signed 32-bit time_t can read back; its 3.6 writer adds this
        // record before `size`.
        if mtime < 0 || mtime >= 0x7FFF_FFFF { records += record("mtime", Array(String(mtime).utf8)) }
        // 8 GiB and above does not fit 11 octal digits.
        if size >= 1 << 33 { records += record("size", Array(String(size).utf8)) }

        var out: [UInt8] = []
        if !records.isEmpty {
            out.reserveCapacity(blockSize * 3 + records.count)
            // The x entry: named <dir>/PaxHeader/<file> after the ustar name, size the records' length, mtime
            // clipped to 0 ... 2^31 - 1, everything else as the entry's; its numbers are strictly terminated octal.
            let clipped = min(max(mtime, 0), 0x7FFF_FFFF)
            out += ustarBlock(name: paxHeaderName(ustarName), size: UInt64(records.count), mtime: clipped, type: UInt8(ascii: "x"), strict: true)
            out += records
            out += [UInt8](repeating: 0, count: padding(size: UInt64(records.count)))
        }
        out += ustarBlock(name: ustarName, size: size, mtime: mtime, type: UInt8(ascii: "0"), strict: false)
        return out
    }

    /// Zero bytes after `size` bytes of content, up to the next 512-byte boundary.
    public static func padding(size: UInt64) -> Int { Int((UInt64(blockSize) - size % UInt64(blockSize)) % UInt64(blockSize)) }

    /// The size of the whole archive of `entries` in this order, trailer included; nil when it does not fit 64 bits.
    public static func archiveSize(entries: [(path: String, size: UInt64)], mtime: Int64) -> UInt64? {
        var total = UInt64(trailerBytes)
        for (path, size) in entries {
            for part in [UInt64(header(path: path, size: size, mtime: mtime).count), size, UInt64(padding(size: size))] {
                let (sum, overflow) = total.addingReportingOverflow(part)
                if overflow { return nil }
                total = sum
            }
        }
        return total
    }

    // MARK: - The ustar block

    /// One ustar header block (libarchive's `__archive_write_format_header_ustar` for a regular file owned by 0:0
    /// with empty user and group names). `strict` is how libarchive formats the `x` header's numbers (always octal
    /// with a terminator); the entry's own header may overflow a terminator or fall back to base-256.
    static func ustarBlock(name: [UInt8], size: UInt64, mtime: Int64, type: UInt8, strict: Bool) -> [UInt8] {
        var h = [UInt8](repeating: 0, count: blockSize)
        func put(_ text: String, at offset: Int) { h.replaceSubrange(offset..<(offset + text.utf8.count), with: Array(text.utf8)) }
        if name.count <= 100 {
            h.replaceSubrange(0..<name.count, with: name)
        } else if let slash = ustarSplit(name) {
            h.replaceSubrange(345..<(345 + slash), with: name[..<slash])
            h.replaceSubrange(0..<(name.count - slash - 1), with: name[(slash + 1)...])
        }  // else libarchive fails the entry and leaves both fields empty; shortenedName never returns such a name.
        put(octal(mode, digits: 6) + " \0", at: 100)
        put("000000 \0", at: 108)  // uid
        put("000000 \0", at: 116)  // gid
        // size: 11 octal digits and a space; past that 12 digits without the space (up to 64 GiB), then base-256.
        if size < 1 << 33 || strict {
            put(octal(size, digits: 11) + " ", at: 124)
        } else if size < 1 << 36 {
            put(octal(size, digits: 12), at: 124)
        } else {
            h.replaceSubrange(124..<136, with: base256(size))
        }
        // mtime: 11 octal digits and a space; outside 0 ..< 8^11, an 11-byte base-256 number (two's complement) and
        // the space.
        if mtime >= 0 && mtime < 1 << 33 {
            put(octal(UInt64(mtime), digits: 11) + " ", at: 136)
        } else {
            h.replaceSubrange(136..<147, with: base256(mtime, bytes: 11))
            h[147] = UInt8(ascii: " ")
        }
        put("        ", at: 148)  // the checksum counts its own field as spaces
        h[156] = type
        put("ustar\u{0}00", at: 257)
        put("000000 \0", at: 329)  // devmajor, formatted for every entry though only devices use it
        put("000000 \0", at: 337)  // devminor
        let sum = h.reduce(0) { $0 + UInt64($1) }
        put(octal(sum, digits: 6) + "\0 ", at: 148)
        return h
    }

    /// Where libarchive splits a name longer than 100 bytes into prefix and name: the first `/` at or after byte
    /// count - 101 (the next one if that is byte 0), provided the name after it is not empty and the prefix before it
    /// is at most 155 bytes.
    static func ustarSplit(_ name: [UInt8]) -> Int? {
        let slash = UInt8(ascii: "/")
        guard var p = name[(name.count - 101)...].firstIndex(of: slash) else { return nil }
        if p == 0 {
            guard let next = name[1...].firstIndex(of: slash) else { return nil }
            p = next
        }
        guard p + 1 < name.count, p <= 155 else { return nil }
        return p
    }

    /// `value` as `digits` octal digits, zero-filled (the callers keep it in range).
    static func octal(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 8)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// A 12-byte base-256 size: big-endian with the top bit of the first byte set.
    static func base256(_ value: UInt64) -> [UInt8] {
        [0x80, 0, 0, 0] + (0..<8).map { UInt8(truncatingIfNeeded: value >> (8 * (7 - $0))) }
    }

    /// An `bytes`-long base-256 time: big-endian two's complement with the top bit of the first byte set.
    static func base256(_ value: Int64, bytes: Int) -> [UInt8] {
        var out = (0..<bytes).map { i -> UInt8 in
            let shift = 8 * (bytes - 1 - i)
            return UInt8(truncatingIfNeeded: shift >= 64 ? value >> 63 : value >> shift)
        }
        out[0] |= 0x80
        return out
    }

    // MARK: - pax records and names

    /// One pax record, "<length> <key>=<value>\n", where length counts its own digits.
    static func record(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let length = 1 + key.utf8.count + 1 + value.count + 1
        var digits = String(length).count
        // A record of 9 bytes plus "9" makes 10 and needs a second digit (and so on at each power of ten).
        if length + digits >= Int(pow10(digits)) { digits += 1 }
        return Array("\(length + digits) \(key)=".utf8) + value + [0x0A]
    }

    private static func pow10(_ n: Int) -> UInt64 { (0..<n).reduce(1) { r, _ in r * 10 } }

    /// The name of an `x` entry: `PaxHeader` inserted as the last folder of the entry's ustar name
    /// (libarchive's build_pax_attribute_name; "PaxHeader/<name>" for a name without a folder).
    static func paxHeaderName(_ name: [UInt8]) -> [UInt8] {
        if name.isEmpty { return Array("PaxHeader/blank".utf8) }
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var end = name.count
        while true {
            if end > 0 && name[end - 1] == slash { end -= 1; continue }
            if end > 1 && name[end - 1] == dot && name[end - 2] == slash { end -= 1; continue }
            break
        }
        if end == 0 { return Array("/PaxHeader/rootdir".utf8) }
        if name[0] == dot && end == 1 { return Array("PaxHeader/currentdir".utf8) }
        return shortenedName(Array(name[..<end]), inserting: Array("PaxHeader".utf8))
    }

    /// libarchive's build_ustar_entry_name: a name that fits ustar (whole leading folders within 154 bytes, then
    /// whole folders and the file name's start within 98), keeping leading folders and the start of the file name,
    /// with `insert` as an extra last folder. Works on bytes, so it may cut a UTF-8 sequence; the `path` record carries
    /// the real name. The limits are one below upstream 3.6.2's 155 and 99: Debian's CVE-2025-5917 fix, in
    /// the library on packtool's build machines (Debian 12, 3.6.2-1+deb12u3 and later).
    static func shortenedName(_ src: [UInt8], inserting insert: [UInt8]?) -> [UInt8] {
        if src.count < 100 && insert == nil { return src }
        let slash = UInt8(ascii: "/"), dot = UInt8(ascii: ".")
        var suffixLength = 98
        let insertLength = insert.map { $0.count + 2 } ?? 0
        // Trailing "/" and "/." are dropped and one "/" restored at the end.
        var filenameEnd = src.count
        var needSlash = false
        while true {
            if filenameEnd > 0 && src[filenameEnd - 1] == slash { filenameEnd -= 1; needSlash = true; continue }
            if filenameEnd > 1 && src[filenameEnd - 1] == dot && src[filenameEnd - 2] == slash { filenameEnd -= 2; needSlash = true; continue }
            break
        }
        if needSlash { suffixLength -= 1 }
        var filename = max(filenameEnd - 1, 0)
        while filename > 0 && src[filename] != slash { filename -= 1 }
        if src[filename] == slash && filename < filenameEnd - 1 { filename += 1 }
        // The file name is cut to what fits beside the inserted folder; the folders after the prefix get the rest.
        suffixLength -= insertLength
        if filenameEnd > filename + suffixLength { filenameEnd = filename + suffixLength }
        suffixLength -= filenameEnd - filename
        // Prefix: the longest run of whole folders within 155 bytes.
        var prefixEnd = min(154, filename)
        while prefixEnd > 0 && src[prefixEnd] != slash { prefixEnd -= 1 }
        if prefixEnd < filename && src[prefixEnd] == slash { prefixEnd += 1 }
        // Then as many whole folders as fit the name field.
        let suffix = prefixEnd
        var suffixEnd = max(min(suffix + suffixLength, filename), suffix)
        while suffixEnd > suffix && src[suffixEnd] != slash { suffixEnd -= 1 }
        if suffixEnd < filename && src[suffixEnd] == slash { suffixEnd += 1 }
        var out = Array(src[..<prefixEnd]) + src[suffix..<suffixEnd]
        if let insert { out += insert + [slash] }
        out += src[filename..<filenameEnd]
        if needSlash { out.append(slash) }
        return out
    }
}

import PackCrypto
import PackModel

extension ArchiveLayout {
    /// An archive's bytes checked against the layout as they are read, in order, from its first byte: every header,
    /// padding and trailer byte compared with the layout's, the first entry with the signed manifest's bytes, and each
    /// file's content hashed against its signed SHA-256 as soon as its last byte is in. What any reader of a whole
    /// archive composes (`packtool verify`); the client's streamed install makes the same comparisons in its own
    /// pipelined loop (`ArchiveStream`), and a test keeps the two agreeing on every code.
    ///
    /// Failures, each naming `name`: `archive-header` (a header byte or padding), `mix-and-match` (the first entry is
    /// not the signed manifest), `hash` (a file's content), `archive-trailer` (a trailer byte that is not zero, or any
    /// byte past the layout's size), `archive-truncated` (`finish` short of the size).
    public final class Check {
        /// The layout the bytes are held to.
        public let layout: ArchiveLayout
        /// What the archive is called in messages (its path).
        public let name: String
        private let manifestBytes: [UInt8]
        /// Bytes checked so far, from the archive's first byte.
        public private(set) var position: UInt64 = 0
        /// Entries (the manifest's included) whose every byte has been checked.
        public private(set) var verifiedEntries = 0
        private var index = 0
        private enum Phase { case header, data, padding }
        private var phase = Phase.header
        private var hasher: SHA256?

        /// A check of an archive against `layout`, whose first entry must be `manifestBytes`, from its first byte.
        public init(layout: ArchiveLayout, manifestBytes: [UInt8], name: String) {
            self.layout = layout
            self.manifestBytes = manifestBytes
            self.name = name
        }

        /// The next bytes of the archive, in order. Throws at the first byte that differs from the layout, or at the
        /// end of a file whose content does not hash to its signed SHA-256.
        public func append(_ bytes: UnsafeRawBufferPointer) throws {
            var rest = bytes
            try settle()
            while !rest.isEmpty {
                let n = try consume(rest)
                position += UInt64(n)
                rest = UnsafeRawBufferPointer(rebasing: rest[n...])
                try settle()
            }
        }

        /// After the archive's last byte: `archive-truncated` when it stopped short of the layout's size.
        public func finish() throws {
            guard position == layout.size else {
                throw VerificationFailure(.archiveTruncated, "\(name): the archive ends after \(position) of \(layout.size) bytes")
            }
        }

        /// Checks the bytes at `position` up to the next boundary; returns how many it took.
        private func consume(_ bytes: UnsafeRawBufferPointer) throws -> Int {
            guard index < layout.entries.count else {
                guard position < layout.size else {
                    throw VerificationFailure(.archiveTrailer, "\(name): data after the end-of-archive marker (the signed manifest dictates \(layout.size) bytes)")
                }
                let n = Int(min(UInt64(bytes.count), layout.size - position))
                try ArchiveLayout.compareTrailer(UnsafeRawBufferPointer(rebasing: bytes[0..<n]), name: name)
                return n
            }
            let entry = layout.entries[index]
            switch phase {
            case .header:
                let k = Int(position - entry.start)
                let n = min(bytes.count, entry.headerSize - k)
                try entry.compareHeader(from: k, with: UnsafeRawBufferPointer(rebasing: bytes[0..<n]), at: position, name: name)
                return n
            case .data:
                let n = Int(min(UInt64(bytes.count), entry.dataEnd - position))
                let piece = UnsafeRawBufferPointer(rebasing: bytes[0..<n])
                if index == 0 {
                    let k = Int(position - entry.dataStart)
                    guard manifestBytes[k..<(k + n)].elementsEqual(piece) else {
                        throw VerificationFailure(.mixAndMatch, "\(name): the archive's manifest is not the one the index names")
                    }
                } else {
                    hasher!.update(piece)
                }
                return n
            case .padding:
                let n = Int(min(UInt64(bytes.count), entry.end - position))
                try entry.comparePadding(UnsafeRawBufferPointer(rebasing: bytes[0..<n]), name: name)
                return n
            }
        }

        /// Takes the steps due at `position`: a hash started where an entry's data starts and compared where it ends,
        /// the next entry at its end.
        private func settle() throws {
            while index < layout.entries.count {
                let entry = layout.entries[index]
                if phase == .header {
                    guard position >= entry.dataStart else { return }
                    if index > 0 { hasher = SHA256() }
                    phase = .data
                }
                if phase == .data {
                    guard position >= entry.dataEnd else { return }
                    if index > 0 {
                        guard Hex.encode(hasher!.finalize()) == entry.sha256 else {
                            throw VerificationFailure(.hash, "\(name): \(entry.path) does not match the manifest's SHA-256")
                        }
                        hasher = nil
                    }
                    phase = .padding
                }
                guard position >= entry.end else { return }
                index += 1
                verifiedEntries = index
                phase = .header
            }
        }
    }
}

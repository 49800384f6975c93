/// One ISO-BMFF box header: where it is, what it is, and where its payload lies.
public struct Box: Equatable, Sendable {
    public var type: String
    /// Offset of the box header in the file.
    public var offset: UInt64
    /// Total size including the header.
    public var size: UInt64
    /// Offset where the payload (after size, type, largesize and uuid) starts.
    public var payloadOffset: UInt64

    public var payloadSize: UInt64 { size - (payloadOffset - offset) }
    public var end: UInt64 { offset + size }
}

/// Walks box headers inside a byte range without reading payloads, with limits that keep hostile files cheap:
/// every size is checked against its parent's bounds, and a container may hold only so many boxes.
struct BoxWalker {
    static let maxBoxesPerContainer = 4096
    static let maxDepth = 12

    let source: ByteSource

    /// The boxes between `start` and `end`, or the first problem met (with the boxes read before it).
    func children(from start: UInt64, to end: UInt64) -> (boxes: [Box], error: String?) {
        var boxes: [Box] = []
        var offset = start
        while offset < end {
            if boxes.count >= Self.maxBoxesPerContainer { return (boxes, "more than \(Self.maxBoxesPerContainer) boxes in one container") }
            guard end - offset >= 8, let header = source.read(at: offset, count: 8) else {
                return (boxes, "truncated box header at \(offset)")
            }
            var r = FieldReader(header)
            let size32 = r.u32()!
            let type = r.fourCC()!
            var size = UInt64(size32)
            var headerSize: UInt64 = 8
            if size32 == 1 {
                guard end - offset >= 16, let large = source.read(at: offset + 8, count: 8) else {
                    return (boxes, "truncated 64-bit size for '\(type)' at \(offset)")
                }
                var lr = FieldReader(large)
                size = lr.u64()!
                headerSize = 16
            } else if size32 == 0 {
                size = end - offset
            }
            if type == "uuid" { headerSize += 16 }
            guard size >= headerSize, size <= end - offset else {
                // Record the box type so callers can list what was there, as other probes do.
                boxes.append(Box(type: type, offset: offset, size: 0, payloadOffset: offset))
                return (boxes, "bad size for '\(type)' at \(offset)")
            }
            boxes.append(Box(type: type, offset: offset, size: size, payloadOffset: offset + headerSize))
            offset += size
        }
        return (boxes, nil)
    }

    /// Reads a whole payload, refusing payloads larger than `limit` (the boxes a probe reads are small).
    func payload(_ box: Box, limit: Int = 1 << 20) -> [UInt8]? {
        guard box.payloadSize <= UInt64(limit) else { return nil }
        return source.read(at: box.payloadOffset, count: Int(box.payloadSize))
    }
}

/// The start every probe shares: the top-level boxes, and the brands of the `ftyp` box that must come first.
struct FileType {
    var top: [Box] = []
    var majorBrand: String?
    var compatibleBrands: [String] = []
    var errors: [String] = []
    /// False when there is no leading `ftyp` (the file is not ISO-BMFF); `errors` says why.
    var found = false

    init(_ walker: BoxWalker, kind: String) {
        let (boxes, topError) = walker.children(from: 0, to: walker.source.size)
        top = boxes
        if let topError { errors.append(topError) }
        guard let ftyp = boxes.first, ftyp.type == "ftyp" else {
            if topError == nil { errors.append("no 'ftyp' box at the start: not \(kind)") }
            return
        }
        found = true
        guard let payload = walker.payload(ftyp, limit: 4096) else {
            errors.append("unreadable 'ftyp' box")
            return
        }
        var r = FieldReader(payload)
        majorBrand = r.fourCC()
        _ = r.u32()
        while let brand = r.fourCC() { compatibleBrands.append(brand) }
    }
}

/// Decodes a `Transfer-Encoding: chunked` body incrementally: bytes go in as they arrive off the socket, body data
/// comes out. Chunk-size lines and trailers are bounded, so a hostile server cannot make it buffer without limit.
public struct ChunkedDecoder {
    private enum State { case size, data(UInt64), dataEnd, trailer, done }
    private var state = State.size
    private var line: [UInt8] = []
    private static let maxLine = 4096

    public init() {}

    public var isDone: Bool { if case .done = state { return true }; return false }

    /// Feeds `input`; calls `emit` with each run of body bytes. Throws on malformed framing.
    public mutating func feed(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        var i = 0
        while i < input.count {
            switch state {
            case .done:
                return
            case .size, .dataEnd, .trailer:
                let byte = input[i]
                i += 1
                if byte != 0x0A {
                    line.append(byte)
                    guard line.count <= Self.maxLine else { throw HTTPError.protocolError("an overlong chunk line") }
                    continue
                }
                if line.last == 0x0D { line.removeLast() }
                defer { line.removeAll(keepingCapacity: true) }
                switch state {
                case .size:
                    let hex = line.prefix { $0 != 0x3B && $0 != 0x20 && $0 != 0x09 }  // drop chunk extensions
                    guard !hex.isEmpty, hex.count <= 15, let size = UInt64(String(decoding: hex, as: UTF8.self), radix: 16) else {
                        throw HTTPError.protocolError("a malformed chunk size")
                    }
                    state = size == 0 ? .trailer : .data(size)
                case .dataEnd:
                    guard line.isEmpty else { throw HTTPError.protocolError("chunk data longer than its size") }
                    state = .size
                case .trailer:
                    if line.isEmpty { state = .done }
                default:
                    break
                }
            case .data(let remaining):
                let n = Int(min(remaining, UInt64(input.count - i)))
                try emit(UnsafeRawBufferPointer(rebasing: input[i..<i + n]))
                i += n
                state = remaining == UInt64(n) ? .dataEnd : .data(remaining - UInt64(n))
            }
        }
    }
}

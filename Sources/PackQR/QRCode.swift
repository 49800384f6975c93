#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
internal import CQRencode

/// A QR code's modules (true = dark), encoded by libqrencode at error-correction level M.
///
/// Text made only of QR's alphanumeric characters (digits, upper-case letters, space and `$%*+-./:`) is encoded in
/// alphanumeric mode, 5.5 bits a character, which keeps a short access code at version 7 (45 × 45 modules); anything
/// else in byte mode.
public struct QRCode: Sendable {
    public let size: Int
    /// Row-major, `size × size`.
    public let modules: [Bool]

    static let alphanumeric = Set("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:".utf8)

    public init(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw QRError("nothing to encode") }
        let mode = bytes.allSatisfy(Self.alphanumeric.contains) ? QR_MODE_AN : QR_MODE_8
        let input = try QRInput(level: QR_ECLEVEL_M)
        // QRinput_append, QRcode_encodeInput: -1 / NULL with errno set (EINVAL, ENOMEM, ERANGE when it does not fit).
        guard QRinput_append(input.handle, mode, Int32(bytes.count), bytes) == 0 else { throw Self.failure("QRinput_append") }
        guard let code = QRcode_encodeInput(input.handle) else { throw Self.failure("QRcode_encodeInput") }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        size = width
        modules = (0..<width * width).map { code.pointee.data[$0] & 1 == 1 }
    }

    func isDark(_ x: Int, _ y: Int) -> Bool { modules[y * size + x] }

    static func failure(_ function: String) -> QRError {
        let e = errno
        return QRError(e == ERANGE ? "the text is too long for a QR code" : "\(function) failed: \(String(cString: strerror(e)))")
    }
}

/// Owns one libqrencode input object.
final class QRInput {
    let handle: OpaquePointer

    init(level: QRecLevel) throws {
        // QRinput_new2: version 0 lets the encoder pick the smallest version that fits.
        guard let h = QRinput_new2(0, level) else { throw QRCode.failure("QRinput_new2") }
        handle = h
    }

    deinit { QRinput_free(handle) }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `packtool new` writes where only the author knows the value: a JSON string starting with ``prefix`` that says
/// what belongs there, and placeholder plates starting with ``plateMarker``. Lint refuses both with a hint, so a pack
/// cannot ship with either left in.
public enum Placeholder {
    /// The start of every placeholder value; the rest says what to put there.
    public static let prefix = "REPLACE ME: "

    /// The first bytes of a placeholder plate (a text file under a .heic name, never a picture).
    public static let plateMarker = "packtool placeholder plate: replace this file with the era's plate, exported as HEIC\n"

    /// A placeholder value saying what belongs there.
    public static func text(_ what: String) -> String { prefix + what }

    /// The instruction a placeholder value carries, or nil when `value` is no placeholder.
    public static func instruction(in value: String) -> String? {
        value.hasPrefix(prefix) ? String(value.dropFirst(prefix.count)) : nil
    }

    /// The bytes of a placeholder plate for `path` (named in the text, so a file opened on its own explains itself).
    public static func plate(for path: String) -> Data {
        Data((plateMarker + "It was written by `packtool new stop` for \(path); `heif-enc plate.png -o \(path)` makes one.\n").utf8)
    }

    /// Whether the first bytes of a file mark it as a placeholder plate.
    public static func isPlate(firstBytes: [UInt8]) -> Bool { firstBytes.starts(with: Array(plateMarker.utf8)) }
}

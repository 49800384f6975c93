/// Characters that make a name mean something other than it shows, shared by the client's path checks and lint (so
/// authors hear about them first):
///
/// - *hidden* ones — C0 and C1 controls, invisible and bidirectional formatting characters (U+200B–U+200F,
///   U+202A–U+202E, U+2066–U+2069, U+FEFF, …) and every other default-ignorable code point: a name with U+202E can
///   display as another name, one with U+200C looks like its twin without it;
/// - *folding* ones — characters whose full case folding or compatibility mapping is not plain lower-casing (ß folds
///   to "ss", ﬁ to "fi", fullwidth letters to ASCII, the Kelvin sign to k): file systems and tools disagree on them.
///
/// With both refused, two names that are the same under Unicode's NFKC_Casefold are the same under `fold` too.
public enum NameCharacters {
    /// The key under which two names are the same file on the phone (APFS): NFC, then lower-cased.
    public static func fold(_ name: String) -> String { name.nfc.lowercased() }

    /// The first hidden character in `name`, if any.
    public static func hidden(in name: String) -> Unicode.Scalar? {
        name.unicodeScalars.first { s in
            let v = s.value
            return v < 0x20 || (0x7F...0x9F).contains(v) || s.properties.generalCategory == .format || s.properties.isDefaultIgnorableCodePoint
        }
    }

    /// The first folding character in `name`, if any: one that NFKC_Casefold still changes after `fold`.
    public static func folding(in name: String) -> Unicode.Scalar? {
        fold(name).unicodeScalars.first { $0.properties.changesWhenNFKCCaseFolded }
    }

    /// "U+202E" for messages: the character itself is not shown, since it may be invisible or reorder the line.
    public static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Finds a repeated key in any object of a JSON text. Decoders disagree on which of two equal keys wins (first,
/// last, or an error), so a signed document with one could mean different things to different readers: anything
/// signed is refused if it has one. Keys are compared after their escapes are decoded (`"a"` and `"\u0061"` are the
/// same key). The text is assumed to be otherwise well-formed; the decoder that follows checks that.
public enum DuplicateKeys {
    /// The first repeated key, or nil.
    public static func first(in bytes: [UInt8]) -> String? {
        var stack: [Set<String>?] = []   // one entry per open container: a key set for objects, nil for arrays
        var i = 0
        var expectKey = false
        while i < bytes.count {
            let b = bytes[i]
            switch b {
            case UInt8(ascii: "{"): stack.append([]); expectKey = true
            case UInt8(ascii: "["): stack.append(nil); expectKey = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"): if !stack.isEmpty { stack.removeLast() }; expectKey = false
            case UInt8(ascii: ","): expectKey = stack.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let start = i
                i += 1
                var escaped = false
                while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") { escaped = true; i += 1 }
                    i += 1
                }
                if expectKey, let keys = stack.last, var set = keys {
                    let raw = Array(bytes[start...min(i, bytes.count - 1)])
                    let key = escaped ? ((try? JSONDecoder().decode(String.self, from: Data(raw))) ?? String(decoding: raw, as: UTF8.self))
                                      : String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
                    if !set.insert(key).inserted { return key }
                    stack[stack.count - 1] = set
                    expectKey = false
                }
            default: break
            }
            i += 1
        }
        return nil
    }
}

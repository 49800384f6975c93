#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia

/// A coordinate as maps, survey notes and GPS apps write it: degrees, minutes and seconds with or without their marks
/// (`51°23′12.8″N`, `3°11'18"W`, `51 23 12.8 N`, `N 51° 23.213'`, `-3 11 18`), read into signed decimal degrees
/// for `route import`. Only the last part may have a fraction; a hemisphere letter (N or S for a latitude, E or W for
/// a longitude) comes first or last and replaces a sign.
public enum DegreesMinutesSeconds {
    public enum Axis: Sendable { case latitude, longitude }

    /// Why text that reads as such a coordinate cannot be one.
    public struct Problem: Error, Equatable, Sendable { public var message: String }

    private enum Mark { case degrees, minutes, seconds }

    /// The signed decimal degrees `text` says, nil when it is not written as degrees-minutes-seconds at all (no mark,
    /// no hemisphere and a single number), and a `Problem` when it is but cannot be read (`60′`, `N` for a longitude).
    public static func degrees(_ text: String, axis: Axis, decimalComma: Bool) throws(Problem) -> Double? {
        var parts: [(digits: String, mark: Mark?)] = [], hemisphere: Character? = nil, negative = false, number = ""
        var scalars = Array(text.unicodeScalars)[...]
        func close() { if !number.isEmpty { parts.append((number, nil)); number = "" } }
        func mark(_ m: Mark) -> Bool {
            close()
            guard let last = parts.last, last.mark == nil else { return false }
            parts[parts.count - 1].mark = m
            return true
        }
        while let c = scalars.popFirst() {
            switch c {
            case "0"..."9", ".": number.unicodeScalars.append(c)
            case "," where decimalComma: number.unicodeScalars.append(".")
            case " ", "\t", "\u{A0}": close()
            case "°", "º", "˚": guard mark(.degrees) else { return nil }
            case "'", "′", "’", "‘":
                if scalars.first == c { scalars.removeFirst(); guard mark(.seconds) else { return nil } } else { guard mark(.minutes) else { return nil } }
            case "\"", "″", "”", "“": guard mark(.seconds) else { return nil }
            case "-", "+":
                guard parts.isEmpty, number.isEmpty, !negative, hemisphere == nil else { return nil }
                negative = c == "-"
            case "N", "S", "E", "W", "n", "s", "e", "w":
                close()
                guard hemisphere == nil, parts.isEmpty || scalars.allSatisfy({ $0 == " " || $0 == "\t" }) else { return nil }
                hemisphere = Character(String(c).uppercased())
            default: return nil
            }
        }
        close()
        guard (1...3).contains(parts.count), parts.count > 1 || parts[0].mark != nil || hemisphere != nil else { return nil }
        let order: [Mark] = [.degrees, .minutes, .seconds]
        var values: [Double] = []
        for (i, part) in parts.enumerated() {
            guard part.mark == nil || part.mark == order[i], let v = Double(part.digits), v.isFinite,
                  part.digits.first != ".", part.digits.last != ".", part.digits.filter({ $0 == "." }).count <= 1 else { return nil }
            if i < parts.count - 1, part.digits.contains(".") {
                throw Problem(message: "only the last part of a degrees-minutes-seconds coordinate may have a fraction")
            }
            if i > 0, v >= 60 { throw Problem(message: "\(part.digits) \(i == 1 ? "minutes" : "seconds") is 60 or more") }
            values.append(v)
        }
        if let hemisphere {
            if negative { throw Problem(message: "has both a sign and a hemisphere letter; write one of them") }
            let allowed: [Character] = axis == .latitude ? ["N", "S"] : ["E", "W"]
            guard allowed.contains(hemisphere) else {
                throw Problem(message: "\(hemisphere) is a \(axis == .latitude ? "longitude" : "latitude")'s hemisphere; a \(axis == .latitude ? "latitude" : "longitude") takes \(allowed[0]) or \(allowed[1])")
            }
            negative = hemisphere == "S" || hemisphere == "W"
        }
        let magnitude = values[0] + (values.count > 1 ? values[1] / 60 : 0) + (values.count > 2 ? values[2] / 3600 : 0)
        return negative ? -magnitude : magnitude
    }

    /// Decimal degrees as `route import` writes them into scene.json: six decimals (about 0.1 m), trailing zeros
    /// dropped (`51.386889`, `-3.188333`, `51.5`).
    public static func decimalText(_ degrees: Double) -> String {
        var text = NumberText.fixed(degrees, 6)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}

/// One cell of the route sheet as text: how export keeps a cell from running as a formula, and how import reads a
/// number back however a spreadsheet saved it.
///
/// The escape follows OWASP's CSV-injection guidance: a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage
/// return gets a leading apostrophe (and is quoted), which spreadsheets show as text. A cell that really begins with
/// an apostrophe gets one too, so import can drop exactly one leading apostrophe from every cell and every value
/// comes back byte for byte. Numbers in number columns (`-3.19744`) are left alone: a spreadsheet shows them as
/// numbers, which is what they are, and no formula runs.
///
/// Beyond OWASP's list, from an outside attack: the formula character may come after leading spaces (` =1+2`,
/// which some spreadsheets trim before reading a formula) and may be its full-width form (`＝`, `＋`, `－`, `＠`, which
/// East Asian input methods type and some spreadsheets read as the ASCII one). Both get the apostrophe too.
public enum RouteCell {
    static let formulaLeading: Set<Character> = ["=", "+", "-", "@", "\t", "\r", "＝", "＋", "－", "＠"]
    /// Spaces a spreadsheet may trim before it looks for a formula: ASCII, no-break and ideographic.
    static let leadingSpaces: Set<Character> = [" ", "\u{A0}", "\u{3000}"]

    /// The cell export writes for `value`, a value as scene.json holds it (`RouteSheet.cell`).
    public static func escaped(_ value: String, in column: RouteSheet.Column) -> String {
        let lead = value.first { !leadingSpaces.contains($0) }
        guard let first = value.first, first == "'" || lead.map(formulaLeading.contains) == true else { return value }
        let numeric = switch column.kind {
        case .text: false
        case .number: isJSONNumber(value)
        case .years: value.split(separator: ";", omittingEmptySubsequences: false).allSatisfy { isJSONNumber(String($0)) }
        }
        return numeric ? value : "'" + value
    }

    /// The value a cell holds: the cell without the one leading apostrophe export's escape adds.
    public static func unescaped(_ cell: String) -> String { cell.first == "'" ? String(cell.dropFirst()) : cell }

    /// A number cell as JSON number text: as written when it is one (`55.9500` stays `55.9500`); with its decimal
    /// comma made a point when the sheet is not comma-separated (`51,38130` → `51.38130`); a latitude or longitude
    /// written in degrees-minutes-seconds in decimal degrees (`DegreesMinutesSeconds.decimalText`). Throws what
    /// was expected.
    static func number(_ text: String, axis: DegreesMinutesSeconds.Axis?, decimalComma: Bool,
                       pointsMayGroup: Bool = false) throws(DegreesMinutesSeconds.Problem) -> String {
        if pointsMayGroup, isGroupedWithPoints(text) {
            let whole = text.replacing(".", with: ""), decimal = text.replacing(".", with: ",")
            throw .init(message: "\"\(text)\" could be \(whole) (points grouping thousands, as this sheet's decimal commas suggest) or a "
                        + "decimal; write \(whole), or \(decimal) for the decimal")
        }
        if isJSONNumber(text) { return text }
        let commas = text.filter { $0 == "," }.count
        if commas == 1, !text.contains(".") {
            let pointed = text.replacing(",", with: ".")
            if isJSONNumber(pointed) {
                if decimalComma { return pointed }
                throw .init(message: "\"\(text)\" is not a number: a decimal comma is read only in a sheet separated by \";\" or tabs "
                            + "(in a comma-separated one it could be a thousands separator); write \(pointed)")
            }
        }
        if let axis, let degrees = try DegreesMinutesSeconds.degrees(text, axis: axis, decimalComma: decimalComma) {
            return DegreesMinutesSeconds.decimalText(degrees)
        }
        if axis != nil {
            throw .init(message: "\"\(text)\" is not a number or degrees-minutes-seconds (e.g. 55.94873, 55°56′55.4″N or 55 56 55.4 N)")
        }
        throw .init(message: "\"\(text)\" is not a number")
    }

    /// `1.500`, `-12.345.678`: one to three digits, then groups of a point and three digits — what a decimal-comma
    /// locale writes for thousands.
    static func isGroupedWithPoints(_ text: String) -> Bool {
        let groups = (text.hasPrefix("-") ? text.dropFirst() : text[...]).split(separator: ".", omittingEmptySubsequences: false)
        guard groups.count > 1, let first = groups.first, (1...3).contains(first.count) else { return false }
        return groups.allSatisfy { $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) } && groups.dropFirst().allSatisfy { $0.count == 3 }
    }

    /// A cell holding a number with a decimal comma (`51,38130`, `-3,19`).
    static func hasDecimalComma(_ cell: String) -> Bool {
        let text = cell.trimmedSpaces
        let parts = (text.hasPrefix("-") ? text.dropFirst() : text[...]).split(separator: ",", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }
    }

    /// RFC 8259's number grammar: what may be written into the JSON as it stands.
    static func isJSONNumber(_ s: String) -> Bool {
        var u = Array(s.utf8)[...]
        func digits() -> Int { let n = u.prefix { (48...57).contains($0) }.count; u = u.dropFirst(n); return n }
        if u.first == UInt8(ascii: "-") { u = u.dropFirst() }
        guard let first = u.first, (48...57).contains(first) else { return false }
        if first == UInt8(ascii: "0") { u = u.dropFirst() } else { _ = digits() }
        if u.first == UInt8(ascii: ".") { u = u.dropFirst(); guard digits() > 0 else { return false } }
        if u.first == UInt8(ascii: "e") || u.first == UInt8(ascii: "E") {
            u = u.dropFirst()
            if u.first == UInt8(ascii: "+") || u.first == UInt8(ascii: "-") { u = u.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return u.isEmpty
    }
}

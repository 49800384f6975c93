/// RFC 4180 CSV as spreadsheets write it: fields separated by commas (or by the semicolons or tabs a spreadsheet set to a
/// decimal-comma locale writes), quoted fields holding separators, doubled quotes and line breaks, records ended by
/// CRLF or LF, an optional UTF-8 byte order mark (Excel's "CSV UTF-8") and an optional line break after the last record.
public struct CSVTable: Equatable, Sendable {
    /// The records in order, the header first. A record's number is its index + 1, as a spreadsheet numbers rows.
    public var records: [[String]]
    /// What separates the fields: `,`, `;` or a tab. Written text always uses commas.
    public var separator: Unicode.Scalar

    public init(records: [[String]], separator: Unicode.Scalar = ",") { self.records = records; self.separator = separator }

    /// The separators a sheet may use, as messages name them.
    static let separators: [(scalar: Unicode.Scalar, name: String)] = [(",", "\",\""), (";", "\";\""), ("\t", "a tab")]

    public struct ParseError: Error, Equatable, Sendable {
        /// The record (1-based, as a spreadsheet numbers rows) where the problem is.
        public var row: Int
        public var message: String
    }

    /// Reads CSV text, its separator the one the header row (the first record) uses outside quotes, or the one a
    /// first `sep=;` line names (Excel's); a header with none is one column, read as comma-separated. Throws for a header using two separators, a quote left open or text
    /// after a closing quote, and for bytes that are not UTF-8.
    public static func parse(_ bytes: [UInt8]) throws -> CSVTable {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        guard var text = String(validating: body, as: UTF8.self) else {
            throw ParseError(row: 1, message: "the file is not UTF-8 text (save it as \"CSV UTF-8\")")
        }
        // Excel writes a `sep=;` line first when asked to keep its separator; it names the separator and is no row.
        var named: Unicode.Scalar? = nil
        let head = Array(text.unicodeScalars.prefix(5))
        if head.count == 5, String(String.UnicodeScalarView(head.prefix(4))).lowercased() == "sep=", separators.contains(where: { $0.scalar == head[4] }) {
            var rest = text.unicodeScalars.dropFirst(5)
            if rest.first == "\r" { rest = rest.dropFirst() }
            if rest.first == "\n" { rest = rest.dropFirst() }
            if rest.count < text.unicodeScalars.count - 5 || rest.isEmpty {  // the line ends there
                named = head[4]
                text = String(String.UnicodeScalarView(rest))
            }
        }
        let separator = try named ?? headerSeparator(text)
        var records: [[String]] = [], record: [String] = [], field = "", quoted = false, afterQuote = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending: Unicode.Scalar? = nil
        func next() -> Unicode.Scalar? { if let p = pending { pending = nil; return p }; return scalars.next() }
        while let c = next() {
            if quoted {
                if c == "\"" {
                    if let n = next() {
                        if n == "\"" { field.unicodeScalars.append("\"") } else { quoted = false; afterQuote = true; pending = n }
                    } else { quoted = false; afterQuote = true }
                } else { field.unicodeScalars.append(c) }
                continue
            }
            switch c {
            case separator:
                record.append(field); field = ""; afterQuote = false
            case "\r", "\n":
                if c == "\r", let n = next(), n != "\n" { pending = n }
                record.append(field); records.append(record); record = []; field = ""; afterQuote = false
            case "\"" where field.isEmpty && !afterQuote:
                quoted = true
            default:
                if afterQuote {
                    throw ParseError(row: records.count + 1, message: "text after a closing quote (a quote inside a quoted field is written twice: \"\")")
                }
                field.unicodeScalars.append(c)
            }
        }
        if quoted { throw ParseError(row: records.count + 1, message: "a quoted field is never closed") }
        if !field.isEmpty || !record.isEmpty || afterQuote { record.append(field); records.append(record) }
        return CSVTable(records: records, separator: separator)
    }

    /// The separator the first record uses outside quotes (a comma when it uses none); throws when it uses two.
    static func headerSeparator(_ text: String) throws -> Unicode.Scalar {
        var quoted = false, found: [Unicode.Scalar] = []
        for c in text.unicodeScalars {
            if c == "\"" { quoted.toggle(); continue }
            if quoted { continue }
            if c == "\n" || c == "\r" { break }
            if separators.contains(where: { $0.scalar == c }), !found.contains(c) { found.append(c) }
        }
        guard found.count <= 1 else {
            let names = separators.filter { found.contains($0.scalar) }.map(\.name)
            throw ParseError(row: 1, message: "the header row is separated by both \(names.joined(separator: " and ")); "
                             + "save the sheet again with one separator")
        }
        return found.first ?? ","
    }

    /// The table as CSV text: commas, CRLF line ends (RFC 4180), a field quoted only when it holds a comma, a quote, a
    /// line break or leading or trailing spaces, or begins with an apostrophe (the escape of a formula-leading cell,
    /// quoted as OWASP's CSV-injection guidance asks).
    public var text: String {
        records.map { $0.map(Self.quote).joined(separator: ",") + "\r\n" }.joined()
    }

    static func quote(_ field: String) -> String {
        let needs = field.unicodeScalars.contains { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }
            || field.first == " " || field.last == " " || field.first == "'"
        return needs ? "\"" + field.replacing("\"", with: "\"\"") + "\"" : field
    }
}

extension String {
    /// Without the spaces and tabs a spreadsheet cell may start or end with.
    var trimmedSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { $0 != " " && $0 != "\t" }) else { return "" }
        let last = scalars.lastIndex(where: { $0 != " " && $0 != "\t" })!
        return String(scalars[first...last])
    }
}

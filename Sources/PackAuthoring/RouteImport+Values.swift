#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia
import PackModel

extension RouteImport {
    /// The sheet being read: its name, for messages, and whether its separator leaves decimal commas unambiguous.
    struct Sheet: CustomStringConvertible {
        var name: String
        var decimalComma: Bool
        /// The sheet writes decimal commas, so `1.500` may be a thousands group: refused as ambiguous.
        var pointsMayGroup = false
        var description: String { name }
    }

    /// One row's planned write and its change; no change when the stop already says what the row says.
    static func plan(id: String, row: Int, cells: [String: String], columns: [RouteSheet.Column], sheet: Sheet, language: String,
                     pack: RootedFolder) throws -> (write: (path: String, bytes: [UInt8], before: [UInt8]?), change: StopChange?) {
        let path = "stops/\(id)/scene.json"
        let workedOut = columns.contains { $0.header == "view.bearing" } && (cells["view.bearing"] ?? "").trimmedSpaces.isEmpty
        if pack.exists(path) {
            let (bytes, scene) = try RouteSheet.parse(pack, path)
            let (edited, changed) = try update(scene, bytes, cells: cells, columns: columns, row: row, sheet: sheet)
            guard !changed.isEmpty else { return ((path, bytes, bytes), nil) }
            let after = JSONParser().parse(edited).root
            let cellChanges = changed.map { cellChange($0, before: scene, after: after, cells: cells, workedOut: workedOut) }
            return ((path, edited, bytes), StopChange(id: id, created: false, columns: changed, cells: cellChanges))
        }
        let text = try newScene(id: id, cells: cells, language: language, row: row, sheet: sheet)
        let after = JSONParser().parse(Array(text.utf8)).root
        let given = columns.map(\.header).filter { !(cells[$0] ?? "").trimmedSpaces.isEmpty || ($0 == "view.bearing" && workedOut) }
        let cellChanges = given.filter { $0 != "id" }.map { cellChange($0, before: nil, after: after, cells: cells, workedOut: workedOut) }
        return ((path, Array(text.utf8), nil), StopChange(id: id, created: true, columns: given, cells: cellChanges))
    }

    /// A column's change, read back from the files before and after as export would write them.
    static func cellChange(_ header: String, before: JSONNode?, after: JSONNode?, cells: [String: String], workedOut: Bool) -> CellChange {
        let column = RouteSheet.columns.first { $0.header == header }!
        let old = before.map { RouteSheet.cell(column, in: $0) } ?? "", new = after.map { RouteSheet.cell(column, in: $0) } ?? ""
        let typed = cells[header]?.trimmedSpaces ?? ""
        var isNumber = false
        if case .number = column.kind { isNumber = true }
        return CellChange(column: header, old: old.isEmpty ? nil : old, new: new.isEmpty ? nil : new,
                          sheet: isNumber && !typed.isEmpty && typed != new ? typed : nil, workedOut: workedOut && header == "view.bearing")
    }

    /// The cells of a change that scene.json changed after the export, by the row's fingerprint.
    static func stale(_ change: StopChange, row: Int, fingerprint: RouteFingerprint) -> [StaleCell] {
        change.cells.filter { !fingerprint.exported($0.old ?? "", id: change.id, header: $0.column) }.map {
            StaleCell(row: row, id: change.id, change: $0, putsBack: fingerprint.exported($0.new ?? "", id: change.id, header: $0.column))
        }
    }

    /// A stale cell as a refusal: what the sheet would do, and the two ways on.
    static func message(_ stale: StaleCell, sheet: Sheet) -> String {
        let c = stale.change, at = "\(sheet):\(stale.row):\(c.column)"
        if stale.putsBack {
            return "\(at): would put back \(c.shown(c.new)) over \(c.shown(c.old)), which scene.json has said since the sheet was exported "
                + "(`lint --fix`, or an edit); export the sheet again, or import with --force to put \(c.shown(c.new)) back"
        }
        return "\(at): \(c.shown(c.new)) in the sheet, but scene.json also changed this value after the sheet was exported (it says "
            + "\(c.shown(c.old)) now); export the sheet again and redo the edit, or import with --force to keep the sheet's value"
    }

    /// The values a row gives, checked: nil for an empty cell; throws for a value that cannot be placed. Numbers come
    /// back as JSON number text (`RouteCell.number`).
    static func value(_ column: RouteSheet.Column, _ cell: String, row: Int, sheet: Sheet) throws -> String? {
        let text = column.kind == .text ? cell : cell.trimmedSpaces
        guard !text.isEmpty else { return nil }
        let at = "\(sheet):\(row):\(column.header)"
        switch column.kind {
        case .text:
            // A control, invisible or bidirectional character (NUL, ESC, U+200B, U+202E, …) makes a title show as
            // something it is not, in the app and in a terminal that prints it; tabs and line breaks are only spacing.
            if let hidden = text.unicodeScalars.first(where: { !["\t", "\n", "\r"].contains($0) && NameCharacters.hidden(in: String($0)) != nil }) {
                throw RouteSheet.Refusal(problems: ["\(at): contains \(NameCharacters.describe(hidden)), a control, invisible or bidirectional character that "
                                                    + "would make the text show as something it is not; retype the cell without it"])
            }
            return text
        case .number(let range, let excludingUpper, let excludingLower, _):
            let axis: DegreesMinutesSeconds.Axis? = column.header.hasSuffix(".lat") ? .latitude : column.header.hasSuffix(".lon") ? .longitude : nil
            let number: String
            do { number = try RouteCell.number(text, axis: axis, decimalComma: sheet.decimalComma, pointsMayGroup: sheet.pointsMayGroup) } catch {
                throw RouteSheet.Refusal(problems: ["\(at): \(error.message)"])
            }
            guard let d = Double(number), d.isFinite else { throw RouteSheet.Refusal(problems: ["\(at): \"\(text)\" is not a number"]) }
            let inRange = range.contains(d) && !(excludingUpper && d == range.upperBound) && !(excludingLower && d == range.lowerBound)
            guard inRange else {
                let low = (excludingLower ? "(" : "[") + format(range.lowerBound), high = format(range.upperBound) + (excludingUpper ? ")" : "]")
                throw RouteSheet.Refusal(problems: ["\(at): \(number == text ? text : "\(text) (\(number))") is out of range; it must lie in \(low), \(high)"])
            }
            return number
        case .years:
            let years = text.split(separator: ";").map { String($0).trimmedSpaces }
            for y in years where Int(y).map({ !(1...9999).contains($0) }) ?? true || y.hasPrefix("+") {
                throw RouteSheet.Refusal(problems: ["\(at): \"\(y)\" is not a year (write the eras' years separated by \";\", e.g. 1824;1900)"])
            }
            if let twice = years.first(where: { y in years.filter { $0 == y }.count > 1 }) {
                throw RouteSheet.Refusal(problems: ["\(at): the year \(twice) is listed twice"])
            }
            return years.joined(separator: ";")
        }
    }

    /// A blank bearing worked out from the anchor to the target, to one decimal, as `lint --fix` sets it.
    static func workedOutBearing(anchor: (lat: Double, lon: Double)?, target: (lat: Double, lon: Double)?, at: String) throws -> String {
        guard let target else {
            throw RouteSheet.Refusal(problems: ["\(at): empty, and there is no view.target to work it out from; give the bearing, or the target's name, lat and lon"])
        }
        guard let anchor, let bearing = Geodesy.composedBearing(fromLat: anchor.lat, lon: anchor.lon, toLat: target.lat, lon: target.lon) else {
            throw RouteSheet.Refusal(problems: ["\(at): empty, but the target is at the anchor (under half a metre away), so no bearing can be worked out; give one"])
        }
        return bearing.text
    }

    // MARK: - Small helpers

    static func format(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }

    static func parentPointer(_ p: String) -> String { String(p[..<p.lastIndex(of: "/")!]) }
    static func lastToken(_ p: String) -> String { String(p[p.index(after: p.lastIndex(of: "/")!)...]) }

    /// Levenshtein distance, for the did-you-mean of an unknown column.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.lowercased()), b = Array(b.lowercased())
        var previous = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where !b.isEmpty {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return a.isEmpty ? b.count : previous[b.count]
    }
}

extension RouteImport.CellChange {
    /// A value as reports show it: text (and text where a number belongs) quoted as JSON writes it, numbers and years
    /// as written, `(none)` for an absent one.
    public func shown(_ value: String?) -> String {
        guard let value else { return "(none)" }
        switch RouteSheet.columns.first(where: { $0.header == column })?.kind {
        case .text?: return JSONText.string(value)
        case .number?: return RouteCell.isJSONNumber(value) ? value : JSONText.string(value)
        default: return value
        }
    }
}

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles
import PackMedia
import PackModel

/// `route import`: the georeferencing sheet applied to a pack. Each row creates or updates one stop's scene.json;
/// only the values that differ are rewritten, by byte ranges (`JSONEdits`), so everything else in the file stays
/// byte-identical. A new stop gets a minimal scene.json and joins the end of pack.json's route. Every new file is
/// prepared before anything is written; a refused row means nothing is written. signoff.json is never touched: the
/// plan names the sign-offs its changes make stale. A cell that would undo a change made to scene.json since the
/// sheet was exported (`RouteFingerprint`) is refused unless forced.
public struct RouteImport {
    /// One stop the import changes: its id, whether it is new, the columns whose values change, and each cell's
    /// change.
    public struct StopChange: Equatable, Sendable {
        public var id: String
        public var created: Bool
        public var columns: [String]
        public var cells: [CellChange]
    }

    /// One value the import changes, as export would show it before and after (nil: absent).
    public struct CellChange: Equatable, Sendable {
        public var column: String
        public var old: String?
        public var new: String?
        /// The cell as the sheet wrote it, when that reads as another text (`51°23′12.8″N`, `51,38130`).
        public var sheet: String?
        /// Whether the value was worked out (a blank bearing, from the target) rather than read.
        public var workedOut: Bool
    }

    /// A cell the sheet sets although scene.json changed that value after the sheet was exported.
    public struct StaleCell: Equatable, Sendable {
        public var row: Int
        public var id: String
        public var change: CellChange
        /// Whether the sheet still holds the exported value (the author left it; the sheet would put it back), or
        /// the author changed it too.
        public var putsBack: Bool
    }

    /// Files to write, relative to the pack folder, with what they held before (nil for a new file).
    public private(set) var writes: [(path: String, bytes: [UInt8], before: [UInt8]?)] = []
    public private(set) var changes: [StopChange] = []
    /// `stops/<id>/signoff.json` of every changed stop that has one: its sign-offs cover the old scene.json.
    public private(set) var staleSignoffs: [String] = []
    /// New stops added to the end of pack.json's route.
    public private(set) var addedToRoute: [String] = []
    /// With `force`, the stale cells imported all the same.
    public private(set) var forced: [StaleCell] = []

    /// Plans the import of `table` (read from the file `sheet`, named in messages) into the pack; throws a
    /// `RouteSheet.Refusal` listing every problem, by row and column. Stale cells are problems unless `force`.
    public init(_ table: CSVTable, sheet name: String, pack: RootedFolder, force: Bool = false) throws {
        let decimalComma = table.separator != ","
        // A sheet that writes decimal commas may also group thousands with points (Excel's "1.500" in a German
        // locale): there a point is not read as a decimal point where it could be a group.
        let commasSeen = decimalComma && table.records.dropFirst().contains { $0.contains(where: RouteCell.hasDecimalComma) }
        let sheet = Sheet(name: name, decimalComma: decimalComma, pointsMayGroup: commasSeen)
        guard let header = table.records.first else { throw RouteSheet.Refusal(problems: ["\(sheet): the file is empty; it needs a header row"]) }
        // A route of thousands of stops is no walk; such a sheet is refused before it costs minutes.
        guard table.records.count <= Self.maximumRows + 1 else {
            throw RouteSheet.Refusal(problems: ["\(sheet): \(table.records.count - 1) rows; a route sheet holds at most \(Self.maximumRows) stops"])
        }
        let (columns, fingerprintIndex) = try Self.columns(header, sheet: sheet)
        // Columns without a name (a spreadsheet's empty trailing columns) are left out, as long as they hold nothing.
        let nameless = header.indices.filter { header[$0].trimmedSpaces.isEmpty }
        let (packBytes, packRoot) = try RouteSheet.parse(pack, "pack.json")
        let route = RouteSheet.route(of: packRoot)
        let language = packRoot["language"]?.string ?? "en"
        var seen: [String: Int] = [:], newRoute: [String] = [], problems: [String] = [], stale: [StaleCell] = []
        for (r, record) in table.records.enumerated().dropFirst() where !record.allSatisfy({ $0.trimmedSpaces.isEmpty }) {
            let row = r + 1
            if record.count != header.count { problems.append(Self.ragged(record, row: row, header: header, sheet: sheet, table.separator)); continue }
            if let stray = nameless.first(where: { !record[$0].trimmedSpaces.isEmpty }) {
                problems.append("\(sheet):\(row): a value in column \(stray + 1), which has no name in the header row"); continue
            }
            var cells: [String: String] = [:]
            for (index, column) in columns { cells[column.header] = RouteCell.unescaped(record[index]) }
            let id = cells["id"]!.trimmedSpaces
            guard RouteSheet.isStopID(id) else {
                problems.append("\(sheet):\(row):id: \"\(id)\" is not a stop id (two or three digits, a hyphen and a slug in lower case, e.g. 08-holyrood-palace)")
                continue
            }
            if let first = seen[id] { problems.append("\(sheet):\(row):id: \(id) is also on row \(first)"); continue }
            seen[id] = row
            var fingerprint: RouteFingerprint? = nil
            if let i = fingerprintIndex, !record[i].trimmedSpaces.isEmpty {
                fingerprint = RouteFingerprint(cell: record[i])
                if fingerprint == nil {
                    problems.append("\(sheet):\(row):\(RouteFingerprint.header): \"\(record[i])\" is not what `route export` writes; leave the column "
                                    + "as exported, or empty this cell to import the row without checking for changes made since the export")
                    continue
                }
            }
            do {
                let plan = try Self.plan(id: id, row: row, cells: cells, columns: columns.map(\.column), sheet: sheet, language: language, pack: pack)
                guard let change = plan.change else { continue }
                writes.append(plan.write)
                changes.append(change)
                if !change.created, pack.exists("stops/\(id)/signoff.json") { staleSignoffs.append("stops/\(id)/signoff.json") }
                // A new stop has no scene.json the sheet could be stale against: a row copied from another keeps that
                // row's `exported` cell, which says nothing about this one.
                if let fingerprint, !change.created { stale += Self.stale(change, row: row, fingerprint: fingerprint) }
                if !route.contains(id) { newRoute.append(id) }
            } catch let refusal as RouteSheet.Refusal {
                problems += refusal.problems
            }
        }
        if force { forced = stale } else { problems += stale.map { Self.message($0, sheet: sheet) } }
        guard problems.isEmpty else { throw RouteSheet.Refusal(problems: problems) }
        if !newRoute.isEmpty, let routeNode = packRoot["route"] {
            var edits = JSONEdits(packBytes)
            for id in newRoute { edits.append(text: JSONText.string(id), to: routeNode) }
            writes.append(("pack.json", edits.apply(), packBytes))
            addedToRoute = newRoute
        } else if !newRoute.isEmpty {
            throw RouteSheet.Refusal(problems: ["pack.json: has no \"route\" to add \(newRoute.joined(separator: ", ")) to"])
        }
    }

    /// The most rows (stops) a sheet may hold.
    static let maximumRows = 2000

    /// The header's columns by position, and the position of the `exported` column if there is one; throws for an
    /// unknown or repeated column and for a sheet without ids.
    static func columns(_ header: [String], sheet: Sheet) throws -> ([(index: Int, column: RouteSheet.Column)], Int?) {
        var problems: [String] = [], columns: [(index: Int, column: RouteSheet.Column)] = [], fingerprint: Int? = nil
        for (i, name) in header.enumerated() {
            let trimmed = name.trimmedSpaces
            if trimmed.isEmpty { continue }  // a column without a name: its cells must be empty (checked per row)
            if let column = RouteSheet.columns.first(where: { $0.header == trimmed }) {
                if columns.contains(where: { $0.column == column }) { problems.append("\(sheet):1:\(trimmed): the column appears twice") }
                columns.append((i, column))
            } else if trimmed == RouteFingerprint.header, fingerprint == nil {
                fingerprint = i
            } else {
                let known = RouteSheet.columns.map(\.header) + [RouteFingerprint.header]
                let guess = known.min { Self.distance($0, trimmed) < Self.distance($1, trimmed) }
                    .flatMap { Self.distance($0, trimmed) <= max(2, trimmed.count / 3) ? $0 : nil }
                problems.append("\(sheet):1: unknown column \"\(trimmed)\"" + (guess.map { "; did you mean \"\($0)\"?" } ?? "")
                                + " (columns: \(known.joined(separator: ", ")))")
            }
        }
        guard columns.contains(where: { $0.column.header == "id" }) else {
            throw RouteSheet.Refusal(problems: problems + ["\(sheet):1: no \"id\" column; each row names its stop by id"])
        }
        guard problems.isEmpty else { throw RouteSheet.Refusal(problems: problems) }
        return (columns, fingerprint)
    }

    /// A row with more or fewer cells than the header: a cell lost or a separator of another kind typed in it.
    static func ragged(_ record: [String], row: Int, header: [String], sheet: Sheet, _ separator: Unicode.Scalar) -> String {
        var text = "\(sheet):\(row): \(record.count) \(record.count == 1 ? "cell" : "cells"), but the header row has \(header.count)"
        let name = { (s: Unicode.Scalar) in CSVTable.separators.first { $0.scalar == s }?.name ?? "\"\(s)\"" }
        if record.count < header.count,
           let other = CSVTable.separators.first(where: { s in s.scalar != separator && record.contains { $0.unicodeScalars.contains(s.scalar) } }) {
            text += " (are its cells separated by \(other.name)? the header row uses \(name(separator)))"
        }
        return text + "; every row needs one cell per column (an empty cell is a value left out)"
    }

    /// Writes every planned file atomically through the rooted layer. Should one write fail, the files already
    /// written are put back, new ones removed with the folders made for them (a new stop's `stops/<id>/`), so the
    /// pack is as it was.
    public func apply(to pack: RootedFolder) throws {
        var done: [(path: String, before: [UInt8]?)] = [], madeFolders: [String] = []
        do {
            // New files first: making a new stop's folder is what fails most (a name taken, a full or locked folder),
            // and a failure then touches no file the author already had. Existing files keep their permission bits.
            for w in writes.filter({ $0.before == nil }) + writes.filter({ $0.before != nil }) {
                if w.before == nil { madeFolders += Self.missingFolders(of: w.path, in: pack) }
                try pack.rewriteAuthored(Data(w.bytes), to: w.path, creatingFolders: w.before == nil)
                done.append((w.path, w.before))
            }
        } catch {
            for d in done.reversed() {
                if let before = d.before { try? pack.rewriteAuthored(Data(before), to: d.path) } else { try? pack.remove(d.path) }
            }
            // Deepest first; `remove` takes a folder only when it is empty, so nothing the author put there goes.
            for folder in madeFolders.reversed() { try? pack.remove(folder) }
            throw error
        }
    }

    /// The folders above `path` that do not exist yet, outermost first.
    static func missingFolders(of path: String, in pack: RootedFolder) -> [String] {
        let parts = PathParts.split(path, omittingEmpty: true).dropLast()
        return parts.indices.map { parts[...$0].joined(separator: "/") }.filter { !pack.exists($0) }
    }
}

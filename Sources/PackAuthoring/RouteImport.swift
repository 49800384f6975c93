#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia
import PackModel

/// `route import`: the georeferencing sheet applied to a pack. Each row creates or updates one stop's scene.json;
/// only the values that differ are rewritten, by byte ranges (`JSONEdits`), so everything else in the file stays
/// byte-identical. A new stop gets a minimal scene.json and joins the end of pack.json's route. Every new file is
/// prepared before anything is written; a refused row means nothing is written. signoff.json is never touched: the
/// plan names the sign-offs its changes make stale.
public struct RouteImport {
    /// One stop the import changes: its id, whether it is new, and the columns whose values change.
    public struct StopChange: Equatable, Sendable {
        public var id: String
        public var created: Bool
        public var columns: [String]
    }

    /// Files to write, relative to the pack folder, with what they held before (nil for a new file).
    public private(set) var writes: [(path: String, bytes: [UInt8], before: [UInt8]?)] = []
    public private(set) var changes: [StopChange] = []
    /// `stops/<id>/signoff.json` of every changed stop that has one: its sign-offs cover the old scene.json.
    public private(set) var staleSignoffs: [String] = []
    /// New stops added to the end of pack.json's route.
    public private(set) var addedToRoute: [String] = []

    /// Plans the import of `table` (read from the file `sheet`, named in messages) into the pack; throws a
    /// `RouteSheet.Refusal` listing every problem, by row and column.
    public init(_ table: CSVTable, sheet: String, pack: RootedFolder) throws {
        var problems: [String] = []
        guard let header = table.records.first else { throw RouteSheet.Refusal(problems: ["\(sheet): the file is empty; it needs a header row"]) }
        var columns: [(index: Int, column: RouteSheet.Column)] = []
        for (i, name) in header.enumerated() {
            let trimmed = name.trimmedSpaces
            if let column = RouteSheet.columns.first(where: { $0.header == trimmed }) {
                if columns.contains(where: { $0.column == column }) { problems.append("\(sheet):1:\(trimmed): the column appears twice") }
                columns.append((i, column))
            } else {
                let known = RouteSheet.columns.map(\.header)
                let guess = known.min { Self.distance($0, trimmed) < Self.distance($1, trimmed) }
                    .flatMap { Self.distance($0, trimmed) <= max(2, trimmed.count / 3) ? $0 : nil }
                problems.append("\(sheet):1: unknown column \"\(trimmed)\"" + (guess.map { "; did you mean \"\($0)\"?" } ?? "")
                                + " (columns: \(known.joined(separator: ", ")))")
            }
        }
        if header.count == 1, header[0].contains(";") {
            throw RouteSheet.Refusal(problems: ["\(sheet):1: the columns are separated by \";\", not commas; save the sheet as \"CSV UTF-8 (comma delimited)\""])
        }
        guard columns.contains(where: { $0.column.header == "id" }) else {
            problems.append("\(sheet):1: no \"id\" column; each row names its stop by id")
            throw RouteSheet.Refusal(problems: problems)
        }
        guard problems.isEmpty else { throw RouteSheet.Refusal(problems: problems) }

        let (packBytes, packRoot) = try RouteSheet.parse(pack, "pack.json")
        let route = RouteSheet.route(of: packRoot)
        let language = packRoot["language"]?.string ?? "en"
        var seen: [String: Int] = [:]
        var newRoute: [String] = []
        for (r, record) in table.records.enumerated().dropFirst() where !record.allSatisfy({ $0.trimmedSpaces.isEmpty }) {
            let row = r + 1
            var cells: [String: String] = [:]
            for (index, column) in columns { cells[column.header] = index < record.count ? record[index] : "" }
            let id = cells["id"]!.trimmedSpaces
            guard RouteSheet.isStopID(id) else {
                problems.append("\(sheet):\(row):id: \"\(id)\" is not a stop id (two or three digits, a hyphen and a slug in lower case, e.g. 08-holyrood-palace)")
                continue
            }
            if let first = seen[id] { problems.append("\(sheet):\(row):id: \(id) is also on row \(first)"); continue }
            seen[id] = row
            let path = "stops/\(id)/scene.json"
            do {
                if pack.exists(path) {
                    let (bytes, scene) = try RouteSheet.parse(pack, path)
                    let (edited, changed) = try Self.update(scene, bytes, cells: cells, columns: columns.map(\.column), row: row, sheet: sheet)
                    if !changed.isEmpty {
                        writes.append((path, edited, bytes))
                        changes.append(StopChange(id: id, created: false, columns: changed))
                        if pack.exists("stops/\(id)/signoff.json") { staleSignoffs.append("stops/\(id)/signoff.json") }
                    }
                } else {
                    let text = try Self.newScene(id: id, cells: cells, language: language, row: row, sheet: sheet)
                    writes.append((path, Array(text.utf8), nil))
                    changes.append(StopChange(id: id, created: true, columns: columns.map(\.column.header).filter { !(cells[$0] ?? "").isEmpty }))
                }
                if !route.contains(id) { newRoute.append(id) }
            } catch let refusal as RouteSheet.Refusal {
                problems += refusal.problems
            }
        }
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

    /// Writes every planned file atomically through the rooted layer. Should one write fail, the files already
    /// written are put back (new ones removed), so the pack is as it was.
    public func apply(to pack: RootedFolder) throws {
        var done: [(path: String, before: [UInt8]?)] = []
        do {
            for w in writes {
                try pack.writeAtomically(Data(w.bytes), to: w.path, creatingFolders: w.before == nil)
                done.append((w.path, w.before))
            }
        } catch {
            for d in done.reversed() {
                if let before = d.before { try? pack.writeAtomically(Data(before), to: d.path) } else { try? pack.remove(d.path) }
            }
            throw error
        }
    }

    // MARK: - One row

    /// The values a row gives, checked: nil for an empty cell; throws for a value that cannot be placed.
    static func value(_ column: RouteSheet.Column, _ cell: String, row: Int, sheet: String) throws -> String? {
        let text = column.kind == .text ? cell : cell.trimmedSpaces
        guard !text.isEmpty else { return nil }
        let at = "\(sheet):\(row):\(column.header)"
        switch column.kind {
        case .text:
            return text
        case .number(let range, let excludingUpper, let excludingLower, _):
            guard isJSONNumber(text), let d = Double(text), d.isFinite else { throw RouteSheet.Refusal(problems: ["\(at): \"\(text)\" is not a number"]) }
            let inRange = range.contains(d) && !(excludingUpper && d == range.upperBound) && !(excludingLower && d == range.lowerBound)
            guard inRange else {
                let low = (excludingLower ? "(" : "[") + format(range.lowerBound), high = format(range.upperBound) + (excludingUpper ? ")" : "]")
                throw RouteSheet.Refusal(problems: ["\(at): \(text) is out of range; it must lie in \(low), \(high)"])
            }
            return text
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

    /// The byte-range edits that make an existing scene.json say what the row says.
    static func update(_ scene: JSONNode, _ bytes: [UInt8], cells: [String: String], columns: [RouteSheet.Column], row: Int,
                       sheet: String) throws -> ([UInt8], [String]) {
        var edits = JSONEdits(bytes), changed: [String] = [], problems: [String] = []
        var values: [String: String?] = [:]
        for column in columns where column.header != "id" {
            do { values[column.header] = try value(column, cells[column.header] ?? "", row: row, sheet: sheet) } catch let r as RouteSheet.Refusal {
                problems += r.problems
            }
        }
        guard problems.isEmpty else { throw RouteSheet.Refusal(problems: problems) }
        let targetHeaders = ["view.target.name", "view.target.lat", "view.target.lon"]
        let targetGiven = targetHeaders.filter { values[$0] != nil }
        let targetSet = targetGiven.filter { values[$0]! != nil }
        if !targetSet.isEmpty, targetSet.count != 3 {
            let missing = targetHeaders.filter { !targetSet.contains($0) }
            let existing = scene["view"]?["target"]
            if existing == nil || missing.contains(where: { values[$0] != nil }) {
                throw RouteSheet.Refusal(problems: ["\(sheet):\(row):\(missing[0]): empty, but a target needs its name, lat and lon (or leave all three empty)"])
            }
        }
        for column in columns where column.header != "id" {
            guard let given = values[column.header] else { continue }
            let node = scene.node(at: column.pointer)
            let at = "\(sheet):\(row):\(column.header)"
            switch column.kind {
            case .text:
                if column.header.hasPrefix("view.target.") { continue }
                guard let text = given else { throw RouteSheet.Refusal(problems: ["\(at): empty, but a stop needs one"]) }
                if let node, node.string != text { edits.replace(node, with: JSONText.string(text)); changed.append(column.header) }
                if node == nil { edits.insert(key: "title", text: JSONText.string(text), into: scene, after: "id"); changed.append(column.header) }
            case .number(_, _, _, let optional):
                if column.header.hasPrefix("view.target.") { continue }
                guard let text = given else {
                    guard optional else { throw RouteSheet.Refusal(problems: ["\(at): empty, but a stop needs one"]) }
                    if node != nil, let parent = scene.node(at: parentPointer(column.pointer)) {
                        edits.remove(key: lastToken(column.pointer), from: parent); changed.append(column.header)
                    }
                    continue
                }
                if let node {
                    if node.double != Double(text) { edits.replace(node, with: text); changed.append(column.header) }
                } else if let parent = scene.node(at: parentPointer(column.pointer)) {
                    let after = column.header == "geofenceRadius" ? "view" : column.header == "view.pitch" ? "fov" : nil
                    edits.insert(key: lastToken(column.pointer), text: text, into: parent, after: after)
                    changed.append(column.header)
                }
            case .years:
                guard let text = given else { throw RouteSheet.Refusal(problems: ["\(at): empty, but a stop needs at least one era"]) }
                let eras = scene["eras"]?.array ?? []
                let have = eras.compactMap { $0["year"]?.double }, want = text.split(separator: ";").compactMap { Double($0) }
                let removed = have.filter { !want.contains($0) }, added = want.filter { !have.contains($0) }
                guard !removed.isEmpty || !added.isEmpty else { continue }  // the same eras, perhaps in another order
                guard removed.isEmpty else {
                    throw RouteSheet.Refusal(problems: ["\(at): the era \(format(removed[0])) is not in the row; import adds eras but never removes one (its plates and sources would be lost): remove it from scene.json by hand"])
                }
                guard let erasNode = scene["eras"] else { continue }
                for year in added { edits.append(text: era(Int(year)), to: erasNode) }
                changed.append(column.header)
            }
        }
        editTarget(scene, values: values, given: targetGiven, set: targetSet, headers: targetHeaders, edits: &edits, changed: &changed)
        let order = RouteSheet.columns.map(\.header)
        return (edits.apply(), order.filter { changed.contains($0) })
    }

    /// The target's part of `update`: its three columns are one value (a name needs its place), so they are set,
    /// changed or removed together once every column's own edit is made.
    private static func editTarget(_ scene: JSONNode, values: [String: String?], given targetGiven: [String], set targetSet: [String],
                                   headers targetHeaders: [String], edits: inout JSONEdits, changed: inout [String]) {
        if !targetGiven.isEmpty, let view = scene["view"] {
            if let target = view["target"] {
                if targetSet.isEmpty, targetGiven.count == 3 {
                    edits.remove(key: "target", from: view); changed += targetGiven
                } else {
                    for header in targetSet {
                        let text = values[header]!!, key = String(header.dropFirst("view.target.".count))
                        guard let node = target[key] else {
                            edits.insert(key: key, text: header == "view.target.name" ? JSONText.string(text) : text, into: target); changed.append(header); continue
                        }
                        let differs = header == "view.target.name" ? node.string != text : node.double != Double(text)
                        if differs { edits.replace(node, with: header == "view.target.name" ? JSONText.string(text) : text); changed.append(header) }
                    }
                }
            } else if targetSet.count == 3 {
                edits.insert(key: "target", text: targetText(values), into: view)
                changed += targetHeaders
            }
        }
    }

    /// A minimal scene.json for a new stop: what the row gives, the eras' plate paths, and empty provenance for
    /// the author to fill in (lint says what is missing).
    static func newScene(id: String, cells: [String: String], language: String, row: Int, sheet: String) throws -> String {
        var values: [String: String] = [:], problems: [String] = []
        for column in RouteSheet.columns where column.header != "id" {
            do { values[column.header] = try value(column, cells[column.header] ?? "", row: row, sheet: sheet) } catch let r as RouteSheet.Refusal {
                problems += r.problems
            }
        }
        let readable = problems.isEmpty
        for header in ["title", "anchor.lat", "anchor.lon", "view.bearing", "view.fov", "eras"] where values[header] == nil && readable {
            problems.append("\(sheet):\(row):\(header): empty, but \(id) is a new stop and needs one")
        }
        let target = ["view.target.name", "view.target.lat", "view.target.lon"].filter { values[$0] != nil }
        if problems.isEmpty, !target.isEmpty, target.count != 3 {
            let missing = ["view.target.name", "view.target.lat", "view.target.lon"].first { values[$0] == nil }!
            problems.append("\(sheet):\(row):\(missing): empty, but a target needs its name, lat and lon (or leave all three empty)")
        }
        guard problems.isEmpty else { throw RouteSheet.Refusal(problems: problems) }
        var view = "    \"bearing\": \(values["view.bearing"]!),\n    \"fov\": \(values["view.fov"]!)"
        if let pitch = values["view.pitch"] { view += ",\n    \"pitch\": \(pitch)" }
        if target.count == 3 { view += ",\n    \"target\": " + targetText(values.mapValues { Optional($0) }).replacing("\n", with: "\n    ") }
        let eras = values["eras"]!.split(separator: ";").map { "    " + era(Int($0)!).replacing("\n", with: "\n    ") }
        return """
            {
              "id": \(JSONText.string(id)),
              "title": \(JSONText.string(values["title"]!)),
              "anchor": {
                "lat": \(values["anchor.lat"]!),
                "lon": \(values["anchor.lon"]!)
              },
              "view": {
            \(view)
              },\(values["geofenceRadius"].map { "\n  \"geofenceRadius\": \($0)," } ?? "")
              "crops": {
                "9x16": {
                  "x": 0.341796875,
                  "y": 0,
                  "width": 0.31640625,
                  "height": 1
                }
              },
              "eras": [
            \(eras.joined(separator: ",\n"))
              ],
              "story": {
                "audio": "story.m4a",
                "transcript": "story.vtt",
                "language": \(JSONText.string(language))
              },
              "provenance": {
                "sources": [],
                "credits": ""
              }
            }

            """
    }

    /// A new era: its year, a label to rewrite, the conventional plate paths, and no sources yet.
    static func era(_ year: Int) -> String {
        """
        {
          "year": \(year),
          "label": "\(year)",
          "layers": {
            "16x9": "layers/\(year)-16x9.heic",
            "9x16": "layers/\(year)-9x16.heic"
          },
          "sources": []
        }
        """
    }

    static func targetText(_ values: [String: String?]) -> String {
        "{\n  \"lat\": \(values["view.target.lat"]!!),\n  \"lon\": \(values["view.target.lon"]!!),\n  \"name\": \(JSONText.string(values["view.target.name"]!!))\n}"
    }

    // MARK: - Small helpers

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

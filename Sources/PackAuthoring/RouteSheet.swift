#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackFiles
import PackMedia
import PackModel

/// The georeferencing spreadsheet of a pack (issue 31): one row a stop, one column a value of its scene.json, named
/// by the path of that value in the file (`anchor.lat` is scene.json's `/anchor/lat`). `route export` writes it,
/// `route import` reads it back (`RouteImport`).
public enum RouteSheet {
    /// One column: its header and where its value lives in scene.json.
    public struct Column: Equatable, Sendable {
        public enum Kind: Equatable, Sendable {
            case text
            /// A number in `range`; `optional` ones may be left empty (the member is then absent).
            case number(ClosedRange<Double>, excludingUpper: Bool, excludingLower: Bool, optional: Bool)
            /// The eras' years, separated by `;`.
            case years
        }
        public var header: String
        public var pointer: String
        public var kind: Kind
    }

    public static let columns: [Column] = [
        Column(header: "id", pointer: "/id", kind: .text),
        Column(header: "title", pointer: "/title", kind: .text),
        Column(header: "anchor.lat", pointer: "/anchor/lat", kind: .number(-90...90, excludingUpper: false, excludingLower: false, optional: false)),
        Column(header: "anchor.lon", pointer: "/anchor/lon", kind: .number(-180...180, excludingUpper: false, excludingLower: false, optional: false)),
        Column(header: "view.target.name", pointer: "/view/target/name", kind: .text),
        Column(header: "view.target.lat", pointer: "/view/target/lat", kind: .number(-90...90, excludingUpper: false, excludingLower: false, optional: true)),
        Column(header: "view.target.lon", pointer: "/view/target/lon", kind: .number(-180...180, excludingUpper: false, excludingLower: false, optional: true)),
        Column(header: "view.bearing", pointer: "/view/bearing", kind: .number(0...360, excludingUpper: true, excludingLower: false, optional: false)),
        Column(header: "view.fov", pointer: "/view/fov", kind: .number(0...180, excludingUpper: false, excludingLower: true, optional: false)),
        Column(header: "view.pitch", pointer: "/view/pitch", kind: .number(-90...90, excludingUpper: false, excludingLower: false, optional: true)),
        Column(header: "geofenceRadius", pointer: "/geofenceRadius", kind: .number(0...500, excludingUpper: false, excludingLower: true, optional: true)),
        Column(header: "eras", pointer: "/eras", kind: .years),
    ]

    /// Stop ids: two or three digits, a hyphen and a slug (schemas/scene.schema.json), at most 64 characters.
    public static func isStopID(_ id: String) -> Bool {
        let parts = id.split(separator: "-", omittingEmptySubsequences: false)
        guard id.utf8.count <= 64, parts.count >= 2, (2...3).contains(parts[0].count),
              parts[0].allSatisfy({ $0.isASCII && $0.isNumber }) else { return false }
        return parts.dropFirst().allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) } }
    }

    public static let maxDocumentBytes = 8 << 20

    /// A refusal: every problem found, each a line (`stops.csv:4:anchor.lat: "55.95x" is not a number`).
    public struct Refusal: Error, Equatable, Sendable {
        public var problems: [String]
        public var message: String { problems.joined(separator: "\n") }
    }

    /// Parses one of the pack's JSON documents, or refuses naming it.
    static func parse(_ pack: RootedFolder, _ relative: String) throws -> (bytes: [UInt8], root: JSONNode) {
        let bytes: [UInt8]
        do { bytes = Array(try pack.read(relative, cap: maxDocumentBytes)) } catch {
            throw Refusal(problems: ["\(relative): cannot be read (\(error))"])
        }
        let result = JSONParser().parse(bytes)
        guard let root = result.root, result.issues.isEmpty, root.members != nil else {
            let issue = result.issues.first.map { "\($0.position.line):\($0.position.column): \($0.message)" } ?? "is not a JSON object"
            throw Refusal(problems: ["\(relative):\(issue) (run `packtool lint` and fix the file first)"])
        }
        return (bytes, root)
    }

    /// The ids in pack.json's route, in order.
    static func route(of pack: JSONNode) -> [String] { pack["route"]?.array?.compactMap(\.string) ?? [] }

    /// A column's value as the file holds it: numbers as written, strings as they read, years joined by `;`; empty
    /// when the value is absent.
    static func cell(_ column: Column, in scene: JSONNode) -> String {
        if column.kind == .years {
            return (scene["eras"]?.array ?? []).compactMap { era -> String? in
                if case .number(let raw, _)? = era["year"]?.value { return raw } else { return nil }
            }.joined(separator: ";")
        }
        switch scene.node(at: column.pointer)?.value {
        case .string(let s)?: return s
        case .number(let raw, _)?: return raw
        default: return ""
        }
    }

    /// What in `scene` a column cannot carry through a sheet and back unchanged: a value of another type than the
    /// column's (true, null, a list or an object; text in a number column other than a scaffold's placeholder, a
    /// number in a text one), an object on the
    /// way that is not one, an era whose year is not a number. Nil when the column holds it (or nothing).
    static func unheld(_ column: Column, in scene: JSONNode) -> String? {
        if column.kind == .years {
            guard let eras = scene["eras"] else { return nil }
            guard let items = eras.array else { return "\"eras\" is \(eras.typeName), not a list" }
            for (i, era) in items.enumerated() {
                if let year = era["year"], year.double == nil { return "eras[\(i)].year is \(year.typeName), not a number" }
            }
            return nil
        }
        var node = scene, path = ""
        for token in PathParts.split(column.pointer, omittingEmpty: true) {
            guard node.members != nil else { return "\"\(path)\" is \(node.typeName), not an object" }
            guard let next = node[token] else { return nil }
            path += path.isEmpty ? token : "." + token
            node = next
        }
        switch (column.kind, node.value) {
        case (.text, .string), (.number, .number): return nil
        case (.number, .string(let text)) where Placeholder.instruction(in: text) != nil: return nil  // a scaffold's "REPLACE ME: …"
        default: return "\"\(column.header)\" is \(node.typeName), not \(column.kind == .text ? "text" : "a number")"
        }
    }

    /// The sheet of a pack: the header, then one row per stop in route order, each cell escaped so that no formula
    /// runs (`RouteCell.escaped`), and last the row's `RouteFingerprint`.
    public static func export(_ pack: RootedFolder) throws -> CSVTable {
        let (_, packRoot) = try parse(pack, "pack.json")
        var records = [columns.map(\.header) + [RouteFingerprint.header]]
        for id in route(of: packRoot) {
            guard isStopID(id) else { throw Refusal(problems: ["pack.json: route names \"\(id)\", which is not a stop id"]) }
            let (_, scene) = try parse(pack, "stops/\(id)/scene.json")
            let unheldValues = columns.compactMap { unheld($0, in: scene) }
            guard unheldValues.isEmpty else {
                throw Refusal(problems: unheldValues.map { "stops/\(id)/scene.json: \($0); the sheet cannot hold it (an import would drop it): fix scene.json (lint shows how), then export" })
            }
            let values = columns.map { cell($0, in: scene) }
            records.append(zip(columns, values).map { RouteCell.escaped($1, in: $0) } + [RouteFingerprint(id: id, values: values).cell])
        }
        return CSVTable(records: records)
    }
}

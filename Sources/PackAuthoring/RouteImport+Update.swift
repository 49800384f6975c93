#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia
import PackModel

extension RouteImport {
    /// The byte-range edits that make an existing scene.json say what the row says.
    static func update(_ scene: JSONNode, _ bytes: [UInt8], cells: [String: String], columns: [RouteSheet.Column], row: Int,
                       sheet: Sheet) throws -> ([UInt8], [String]) {
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
        // Part of a target emptied and the rest not in the sheet: the target cannot lose one of its three values, and
        // saying "nothing to change" would drop the author's edit without a word.
        if targetSet.isEmpty, !targetGiven.isEmpty, targetGiven.count < 3, scene["view"]?["target"] != nil {
            throw RouteSheet.Refusal(problems: ["\(sheet):\(row):\(targetGiven[0]): empty, but a target needs its name, lat and lon; to remove "
                                                + "the target, empty all three columns (view.target.name, view.target.lat, view.target.lon)"])
        }
        if let bearing = values["view.bearing"], bearing == nil {
            values["view.bearing"] = try fillBearing(scene, values: values, targetRemoved: targetSet.isEmpty && targetGiven.count == 3,
                                                     at: "\(sheet):\(row):view.bearing")
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
                } else if let parent = scene.node(at: parentPointer(column.pointer)), parent.members != nil {
                    let after = column.header == "geofenceRadius" ? "view" : column.header == "view.pitch" ? "fov" : nil
                    edits.insert(key: lastToken(column.pointer), text: text, into: parent, after: after)
                    changed.append(column.header)
                } else {
                    // Never a value silently dropped (an outside attack saw a row's anchor ignored and "nothing to change").
                    throw RouteSheet.Refusal(problems: [unplaced(at, parentPointer(column.pointer))])
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
                guard let erasNode = scene["eras"], erasNode.array != nil else { throw RouteSheet.Refusal(problems: [unplaced(at, "/eras")]) }
                for year in added { edits.append(text: era(Int(year)), to: erasNode) }
                changed.append(column.header)
            }
        }
        if !targetSet.isEmpty, scene["view"]?.members == nil {
            throw RouteSheet.Refusal(problems: [unplaced("\(sheet):\(row):\(targetSet[0])", "/view")])
        }
        editTarget(scene, values: values, given: targetGiven, set: targetSet, headers: targetHeaders, edits: &edits, changed: &changed)
        let order = RouteSheet.columns.map(\.header)
        return (edits.apply(), order.filter { changed.contains($0) })
    }

    /// Why a value has nowhere to go: the object that would hold it is missing or not an object.
    private static func unplaced(_ at: String, _ parent: String) -> String {
        let name = parent.dropFirst().replacing("/", with: ".")
        return "\(at): scene.json has no \"\(name)\" \(parent == "/eras" ? "list" : "object") to hold it; add it to scene.json (lint shows what belongs there), then import again"
    }

    /// A blank bearing in an existing scene, worked out from the anchor and target the row leaves it with.
    private static func fillBearing(_ scene: JSONNode, values: [String: String?], targetRemoved: Bool, at: String) throws -> String {
        func number(_ header: String) -> Double? {
            if let given = values[header] { return given.flatMap { Double($0) } }
            return scene.node(at: "/" + header.replacing(".", with: "/"))?.double
        }
        let anchor = number("anchor.lat").flatMap { lat in number("anchor.lon").map { (lat, $0) } }
        let target = targetRemoved ? nil : number("view.target.lat").flatMap { lat in number("view.target.lon").map { (lat, $0) } }
        return try workedOutBearing(anchor: anchor, target: target, at: at)
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
}

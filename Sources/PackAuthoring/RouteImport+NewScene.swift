#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import PackMedia
import PackModel

extension RouteImport {
    /// A minimal scene.json for a new stop: what the row gives, the eras' plate paths, and empty provenance for
    /// the author to fill in (lint says what is missing).
    static func newScene(id: String, cells: [String: String], language: String, row: Int, sheet: Sheet) throws -> String {
        var values: [String: String] = [:], problems: [String] = []
        for column in RouteSheet.columns where column.header != "id" {
            do { values[column.header] = try value(column, cells[column.header] ?? "", row: row, sheet: sheet) } catch let r as RouteSheet.Refusal {
                problems += r.problems
            }
        }
        let readable = problems.isEmpty
        if readable, values["view.bearing"] == nil, let lat = values["view.target.lat"].flatMap(Double.init), let lon = values["view.target.lon"].flatMap(Double.init) {
            let anchor = values["anchor.lat"].flatMap(Double.init).flatMap { a in values["anchor.lon"].flatMap(Double.init).map { (a, $0) } }
            do { values["view.bearing"] = try workedOutBearing(anchor: anchor, target: (lat, lon), at: "\(sheet):\(row):view.bearing") } catch let r as RouteSheet.Refusal {
                problems += r.problems
            }
        }
        for header in ["title", "anchor.lat", "anchor.lon", "view.bearing", "view.fov", "eras"] where values[header] == nil && readable {
            problems.append("\(sheet):\(row):\(header): empty, but \(id) is a new stop and needs one"
                            + (header == "view.bearing" ? " (or a view.target to work it out from)" : ""))
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
}

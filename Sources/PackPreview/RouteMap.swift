#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import PackMedia

/// The route page's map: an SVG in a local projection (equirectangular about the route's centre, so bearings and
/// distances read true at street scale), with each stop's anchor, its composed bearing and field-of-view cone, the
/// target it is centred on, and the route line in walking order.
struct RouteMap {
    let stops: [PreviewStop]
    let width = 860.0
    let height = 560.0
    let margin = 56.0

    /// Metres east and north of the reference point.
    private struct Projection {
        let lat0: Double, lon0: Double
        let scale: Double, offsetX: Double, offsetY: Double

        func local(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) {
            let r = Geodesy.earthRadius * .pi / 180
            return ((lon - lon0) * r * cos(lat0 * .pi / 180), (lat - lat0) * r)
        }

        func screen(_ lat: Double, _ lon: Double) -> (x: Double, y: Double) {
            let p = local(lat, lon)
            return (offsetX + p.x * scale, offsetY - p.y * scale)
        }
    }

    private func projection() -> Projection? {
        var points: [(Double, Double)] = []
        for stop in stops {
            guard let a = stop.anchor else { continue }
            points.append((a.lat, a.lon))
            if let t = stop.view?.target { points.append((t.lat, t.lon)) }
        }
        guard !points.isEmpty, points.allSatisfy({ $0.0.isFinite && $0.1.isFinite && abs($0.0) <= 90 && abs($0.1) <= 180 }) else { return nil }
        let lat0 = points.map(\.0).reduce(0, +) / Double(points.count)
        let lon0 = points.map(\.1).reduce(0, +) / Double(points.count)
        let base = Projection(lat0: lat0, lon0: lon0, scale: 1, offsetX: 0, offsetY: 0)
        let local = points.map { base.local($0.0, $0.1) }
        let minX = local.map(\.x).min()!, maxX = local.map(\.x).max()!
        let minY = local.map(\.y).min()!, maxY = local.map(\.y).max()!
        // At least 200 m across, so one stop (or stops a few metres apart) still draws at street scale.
        let spanX = max(maxX - minX, 200), spanY = max(maxY - minY, 200)
        let scale = min((width - 2 * margin) / spanX, (height - 2 * margin) / spanY)
        let offsetX = width / 2 - (minX + maxX) / 2 * scale
        let offsetY = height / 2 + (minY + maxY) / 2 * scale
        return Projection(lat0: lat0, lon0: lon0, scale: scale, offsetX: offsetX, offsetY: offsetY)
    }

    /// The SVG, or a note when no stop has a readable anchor.
    func svg() -> String {
        guard let p = projection() else {
            return #"<p class="empty">No stop has a readable anchor, so there is no map: see the findings below.</p>"#
        }
        let n = HTML.number
        var out = """
        <svg id="route-map" class="route-map" viewBox="0 0 \(n(width)) \(n(height))" role="img" aria-labelledby="route-map-title">
        <title id="route-map-title">Map of the route: \(stops.count) stops, each with its view's bearing, field of view and target</title>
        <rect class="ground" x="0" y="0" width="\(n(width))" height="\(n(height))"/>

        """
        let anchored = stops.compactMap { s in s.anchor.map { (s, p.screen($0.lat, $0.lon)) } }
        if anchored.count > 1 {
            out += #"<polyline class="route-line" points=""# + anchored.map { "\(n($0.1.x)),\(n($0.1.y))" }.joined(separator: " ") + "\"/>\n"
        }
        // Three layers, so nothing hides a mark: every cone and bearing first, then the anchors (numbered links to
        // their stops), then the targets on top — a target 20 m from its anchor is only a few pixels away from it.
        var targets = ""
        for (stop, at) in anchored {
            out += "<g class=\"stop-view\" data-stop=\"\(HTML.escape(stop.folder))\">\n"
            if let view = stop.view, view.bearing.isFinite, view.fov.isFinite {
                let reach: Double
                if let t = view.target {
                    let tp = p.screen(t.lat, t.lon)
                    reach = min(max(hypot(tp.x - at.x, tp.y - at.y), 36), 140)
                    targets += "<path class=\"target\" data-stop=\"\(HTML.escape(stop.folder))\" d=\"M\(n(tp.x)) \(n(tp.y - 6)) L\(n(tp.x + 6)) \(n(tp.y)) L\(n(tp.x)) \(n(tp.y + 6)) L\(n(tp.x - 6)) \(n(tp.y)) Z\"><title>Stop \(stop.number)'s target: \(HTML.escape(t.name))</title></path>\n"
                } else {
                    reach = 60
                }
                out += cone(at: at, bearing: view.bearing, fov: min(max(view.fov, 1), 179), reach: reach, stop: stop)
                let end = Self.point(at, bearing: view.bearing, distance: reach)
                out += "<line class=\"bearing\" x1=\"\(n(at.x))\" y1=\"\(n(at.y))\" x2=\"\(n(end.x))\" y2=\"\(n(end.y))\"/>\n"
            }
            out += "</g>\n"
        }
        for (stop, at) in anchored {
            let findings = stop.errorCount + stop.warningCount
            out += """
            <g class="stop-mark\(stop.errorCount > 0 ? " has-errors" : stop.warningCount > 0 ? " has-warnings" : "")" data-stop="\(HTML.escape(stop.folder))">
            \(findings > 0 ? "<circle class=\"finding-ring\" cx=\"\(n(at.x))\" cy=\"\(n(at.y))\" r=\"15\"/>" : "")
            <a href="stops/\(HTML.escape(stop.page))" aria-label="Stop \(stop.number): \(HTML.escape(stop.title))\(findings > 0 ? ", \(findings) finding\(findings == 1 ? "" : "s")" : "")">
            <circle class="anchor" cx="\(n(at.x))" cy="\(n(at.y))" r="10"/>
            <text class="anchor-number" x="\(n(at.x))" y="\(n(at.y + 4))" text-anchor="middle">\(stop.number)</text>
            </a>
            </g>

            """
        }
        out += "<g class=\"targets\">\n\(targets)</g>\n"
        out += scaleBar(p)
        out += "<text class=\"north\" x=\"\(n(width - 24))\" y=\"30\" text-anchor=\"middle\">N ↑</text>\n</svg>\n"
        return out
    }

    private func cone(at: (x: Double, y: Double), bearing: Double, fov: Double, reach: Double, stop: PreviewStop) -> String {
        let n = HTML.number
        let left = Self.point(at, bearing: bearing - fov / 2, distance: reach)
        let right = Self.point(at, bearing: bearing + fov / 2, distance: reach)
        let large = fov > 180 ? 1 : 0
        return "<path class=\"fov\" d=\"M\(n(at.x)) \(n(at.y)) L\(n(left.x)) \(n(left.y)) A\(n(reach)) \(n(reach)) 0 \(large) 1 \(n(right.x)) \(n(right.y)) Z\"><title>Stop \(stop.number): bearing \(n(bearing))°, field of view \(n(fov))°</title></path>\n"
    }

    /// A point `distance` pixels from `at` along a bearing (degrees clockwise from north; screen y grows downwards).
    static func point(_ at: (x: Double, y: Double), bearing: Double, distance: Double) -> (x: Double, y: Double) {
        let r = bearing * .pi / 180
        return (at.x + sin(r) * distance, at.y - cos(r) * distance)
    }

    /// A scale bar of a round number of metres about a fifth of the map's width.
    private func scaleBar(_ p: Projection) -> String {
        let n = HTML.number
        let target = width / 5 / p.scale
        let steps: [Double] = [10, 20, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000]
        let metres = steps.last { $0 <= target } ?? steps[0]
        let length = metres * p.scale
        let y = height - 20
        return """
        <g class="scale"><line x1="20" y1="\(n(y))" x2="\(n(20 + length))" y2="\(n(y))"/><text x="20" y="\(n(y - 6))">\(metres >= 1000 ? "\(n(metres / 1000)) km" : "\(Int(metres)) m")</text></g>

        """
    }
}

import PackMedia
import PackModel

/// Stops along the route are within walking distance of each other, and their geofences do not overlap (the app
/// could not tell which stop a visitor is at). The route's length is reported with the lint summary.
struct RouteGeometryRule: LintRule {
    static let legTooLong = RuleCode("PT0206", .warning, "consecutive stops are farther apart than a comfortable walk")
    static let geofencesOverlap = RuleCode("PT0207", .warning, "two stops' geofences overlap")
    static let areaInverted = RuleCode("PT0210", .error, "pack.json's area has south above north or west east of east")
    static let codes = [legTooLong, geofencesOverlap, areaInverted]

    func check(_ context: LintContext) -> [Diagnostic] {
        guard let document = context.pack else { return [] }
        var out: [Diagnostic] = []
        if let area = context.packArea, area.south >= area.north || area.west >= area.east {
            out.append(Self.areaInverted.diagnostic("area south \(area.south) / north \(area.north), west \(area.west) / east \(area.east) is empty",
                                                    at: document.location("/area"), hint: "south < north and west < east (degrees)"))
        }
        guard context.isWholePack else { return out }
        let stops = Self.routeAnchors(context)
        for (i, (stop, lat, lon)) in stops.enumerated() where i > 0 {
            let (previous, plat, plon) = stops[i - 1]
            let d = Geodesy.distance(fromLat: plat, lon: plon, toLat: lat, lon: lon)
            if d > context.limits.maxLegDistance {
                out.append(Self.legTooLong.diagnostic("\(previous) → \(stop) is \(Int(d.rounded())) m, over \(format(context.limits.maxLegDistance)) m",
                                                      at: document.location("/route/\(i)"),
                                                      hint: "add a stop between them, or raise lint.maxLegDistance in pack.json"))
            }
        }
        // Each stop's own radius where its scene.json sets one, else the pack's default.
        let radii = stops.map { stop in context.scenes.first { $0.stop == stop.0 }?.geofenceRadius ?? context.packGeofenceRadius }
        for i in stops.indices {
            for j in stops.indices where j > i {
                guard let ri = radii[i], let rj = radii[j] else { continue }
                let d = Geodesy.distance(fromLat: stops[i].1, lon: stops[i].2, toLat: stops[j].1, lon: stops[j].2)
                if d < ri + rj {
                    out.append(Self.geofencesOverlap.diagnostic(
                        "\(stops[i].0) and \(stops[j].0) are \(Int(d.rounded())) m apart, closer than two geofence radii (\(format(ri + rj)) m)",
                        at: document.location("/route/\(j)"), hint: "move one anchor, merge the stops, or reduce geofenceRadius"))
                }
            }
        }
        return out
    }

    /// (stop, lat, lon) in route order, for stops whose scene.json could be read.
    static func routeAnchors(_ context: LintContext) -> [(String, Double, Double)] {
        guard let route = context.packRoute else { return [] }
        return route.compactMap { stop in
            guard let anchor = context.scenes.first(where: { $0.stop == stop })?.anchor else { return nil }
            return (stop, anchor.lat, anchor.lon)
        }
    }

    /// The walking length of the route along straight legs, in metres.
    static func routeLength(_ context: LintContext) -> Double {
        let stops = routeAnchors(context)
        return zip(stops, stops.dropFirst()).reduce(0) { $0 + Geodesy.distance(fromLat: $1.0.1, lon: $1.0.2, toLat: $1.1.1, lon: $1.1.2) }
    }
}

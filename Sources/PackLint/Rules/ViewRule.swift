import PackMedia
import PackModel

/// Where the visitor stands and looks: inside the pack's area, a plausible field of view, and a composed bearing
/// that really points at the named target (within 1.5°), at a plausible distance.
struct ViewRule: LintRule {
    static let anchorOutside = RuleCode("PT0201", .error, "a stop's anchor lies outside the pack's area")
    static let targetOutside = RuleCode("PT0202", .error, "a view target lies outside the pack's area")
    static let bearingMismatch = RuleCode("PT0203", .error, "view.bearing disagrees with the bearing from anchor to target by more than 1.5°")
    static let fovImplausible = RuleCode("PT0204", .warning, "view.fov is outside the plausible range for a phone camera")
    static let targetDistance = RuleCode("PT0205", .warning, "the target is implausibly near or far from the anchor")
    static let codes = [anchorOutside, targetOutside, bearingMismatch, fovImplausible, targetDistance]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let limits = context.limits
        for source in context.scenes {
            guard let view = source.view, let a = source.anchor else { continue }
            if let area = context.packArea, !area.contains(lat: a.lat, lon: a.lon) {
                out.append(Self.anchorOutside.diagnostic("anchor \(a.lat), \(a.lon) is outside the pack's area", at: source.location("/anchor"),
                                                         hint: "check for swapped or mistyped coordinates (lat is north-south, lon east-west), or widen pack.json's area"))
            }
            let fov = view.fov
            if fov < limits.minFov || fov > limits.maxFov {
                out.append(Self.fovImplausible.diagnostic("field of view \(format(fov))° is outside \(format(limits.minFov))°–\(format(limits.maxFov))°",
                                                          at: source.location("/view/fov"), hint: "phone main cameras see about 60–70° across in landscape"))
            }
            guard let t = view.target else { continue }
            if let area = context.packArea, !area.contains(lat: t.lat, lon: t.lon) {
                out.append(Self.targetOutside.diagnostic("target \"\(t.name)\" at \(t.lat), \(t.lon) is outside the pack's area",
                                                         at: source.location("/view/target"), hint: "check the target's coordinates"))
            }
            let distance = Geodesy.distance(fromLat: a.lat, lon: a.lon, toLat: t.lat, lon: t.lon)
            if distance < limits.minTargetDistance || distance > limits.maxTargetDistance {
                out.append(Self.targetDistance.diagnostic("target \"\(t.name)\" is \(Int(distance.rounded())) m from the anchor",
                                                          at: source.location("/view/target"),
                                                          hint: "expected \(format(limits.minTargetDistance))–\(format(limits.maxTargetDistance)) m; check the coordinates"))
            }
            guard let (bearing, corrected) = Geodesy.composedBearing(fromLat: a.lat, lon: a.lon, toLat: t.lat, lon: t.lon) else { continue }
            let error = Geodesy.angularDifference(bearing, view.bearing)
            if error > limits.maxBearingError {
                out.append(Self.bearingMismatch.diagnostic(
                    "view.bearing is \(format(view.bearing))° but \"\(t.name)\" lies at \(format(bearing, digits: 1))° from the anchor (\(format(error, digits: 1))° apart)",
                    at: source.location("/view/bearing"),
                    hint: "set the bearing to \(corrected), or correct the target or anchor; the plates will not line up through the camera otherwise",
                    fix: source.fix(replacing: "/view/bearing", with: corrected, "set the bearing to \(corrected)")))
            }
        }
        return out
    }
}

/// Numbers in messages: no trailing ".0", a fixed number of digits when asked.
func format(_ value: Double, digits: Int? = nil) -> String {
    if let digits { return NumberText.fixed(value, digits) }
    return value.rounded() == value && abs(value) < 1e12 ? String(Int(value)) : String(value)
}

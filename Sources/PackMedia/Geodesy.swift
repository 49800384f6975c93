#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Great-circle geometry on a spherical Earth, accurate to well under a metre and a tenth of a degree over the few
/// hundred metres between a stop and what it looks at.
public enum Geodesy {
    /// The IUGG mean Earth radius in metres.
    public static let earthRadius = 6_371_008.8

    /// Haversine distance in metres between two WGS84 points given in degrees.
    public static func distance(fromLat lat1: Double, lon lon1: Double, toLat lat2: Double, lon lon2: Double) -> Double {
        let φ1 = radians(lat1), φ2 = radians(lat2)
        let dφ = radians(lat2 - lat1), dλ = radians(lon2 - lon1)
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * earthRadius * atan2(a.squareRoot(), (1 - a).squareRoot())
    }

    /// Initial great-circle bearing in degrees true, in [0, 360), from the first point towards the second.
    public static func initialBearing(fromLat lat1: Double, lon lon1: Double, toLat lat2: Double, lon lon2: Double) -> Double {
        let φ1 = radians(lat1), φ2 = radians(lat2), dλ = radians(lon2 - lon1)
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let θ = atan2(y, x) * 180 / .pi
        return (θ + 360).truncatingRemainder(dividingBy: 360)
    }

    /// The bearing from an anchor to what it looks at, as `lint --fix` writes it (PT0203) and `route import` fills a
    /// blank bearing with: `degrees` exact, `text` to one decimal with 359.96 written 0.0 (bearings stay below 360).
    /// Nil when the two points are under half a metre apart, where no bearing means anything.
    public static func composedBearing(fromLat lat1: Double, lon lon1: Double, toLat lat2: Double, lon lon2: Double) -> (degrees: Double, text: String)? {
        guard distance(fromLat: lat1, lon: lon1, toLat: lat2, lon: lon2) >= 0.5 else { return nil }
        let degrees = initialBearing(fromLat: lat1, lon: lon1, toLat: lat2, lon: lon2)
        return (degrees, NumberText.fixed((degrees * 10).rounded() / 10 >= 360 ? 0 : degrees, 1))
    }

    /// The smallest angle between two bearings, in [0, 180].
    public static func angularDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }

    private static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
}

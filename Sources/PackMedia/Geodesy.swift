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

    /// The smallest angle between two bearings, in [0, 180].
    public static func angularDifference(_ a: Double, _ b: Double) -> Double {
        let d = abs(a - b).truncatingRemainder(dividingBy: 360)
        return d > 180 ? 360 - d : d
    }

    private static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }
}

import PackMedia
import XCTest

/// Checked against the researched route in ../shared/content/royal-mile-stops.txt (legs computed there from OS grid
/// references, an independent method) and against symmetric cases that pin the conventions.
final class GeodesyTests: XCTestCase {
    private let stops: [(Double, Double)] = [
        (55.94873, -3.19744), (55.94930, -3.19374), (55.94979, -3.19004), (55.95028, -3.18776),
        (55.95054, -3.18473), (55.95136, -3.18011), (55.95272, -3.17454),
    ]

    func testRouteLegsMatchTheGridComputedDistancesWithinFourMetres() {
        let expected: [Double] = [239, 237, 152, 191, 302, 378]
        var total = 0.0
        for (i, leg) in expected.enumerated() {
            let d = Geodesy.distance(fromLat: stops[i].0, lon: stops[i].1, toLat: stops[i + 1].0, lon: stops[i + 1].1)
            XCTAssertEqual(d, leg, accuracy: 4, "leg \(i + 1)")
            total += d
        }
        XCTAssertEqual(total, 1498, accuracy: 10)
    }

    func testBearingsToListedBuildingsMatchTheGridComputedLooks() {
        // (stand, listed building's WGS84 position, look bearing computed from OS grid references)
        let cases: [(Double, Double, Double, Double, Double)] = [
            (55.94930, -3.19374, 55.94948, -3.19376, 356.2),  // Lawnmarket → Gladstone's Land, LB29233
            (55.95136, -3.18011, 55.95154, -3.18005, 10.3),   // Canongate → Tolbooth, LB27582
            (55.95054, -3.18473, 55.95067, -3.18510, 302.2),  // Netherbow → John Knox House, LB29033
        ]
        for (lat, lon, tlat, tlon, expected) in cases {
            XCTAssertEqual(Geodesy.initialBearing(fromLat: lat, lon: lon, toLat: tlat, lon: tlon), expected, accuracy: 1.5)
        }
    }

    func testCardinalBearingsAndRange() {
        XCTAssertEqual(Geodesy.initialBearing(fromLat: 0, lon: 0, toLat: 1, lon: 0), 0, accuracy: 1e-9)
        XCTAssertEqual(Geodesy.initialBearing(fromLat: 0, lon: 0, toLat: 0, lon: 1), 90, accuracy: 1e-9)
        XCTAssertEqual(Geodesy.initialBearing(fromLat: 0, lon: 0, toLat: -1, lon: 0), 180, accuracy: 1e-9)
        XCTAssertEqual(Geodesy.initialBearing(fromLat: 0, lon: 0, toLat: 0, lon: -1), 270, accuracy: 1e-9)
        let b = Geodesy.initialBearing(fromLat: 55.95, lon: -3.19, toLat: 55.951, lon: -3.1901)
        XCTAssertTrue((0..<360).contains(b))
    }

    func testOneDegreeOfLatitudeIsAbout111Kilometres() {
        XCTAssertEqual(Geodesy.distance(fromLat: 0, lon: 0, toLat: 1, lon: 0), 111_195, accuracy: 1)
        XCTAssertEqual(Geodesy.distance(fromLat: 55.9, lon: -3.2, toLat: 55.9, lon: -3.2), 0)
    }

    func testAngularDifferenceWrapsAroundNorth() {
        XCTAssertEqual(Geodesy.angularDifference(359, 1), 2, accuracy: 1e-12)
        XCTAssertEqual(Geodesy.angularDifference(10, 190), 180, accuracy: 1e-12)
        XCTAssertEqual(Geodesy.angularDifference(80.1, 80.1), 0)
    }

    /// What `lint --fix` writes and `route import` fills a blank bearing with: one decimal, never 360.0, and nothing
    /// for a target at the anchor.
    func testTheComposedBearingIsToOneDecimalNeverThreeSixtyAndNoneAtTheAnchor() throws {
        let castle = try XCTUnwrap(Geodesy.composedBearing(fromLat: 55.94873, lon: -3.19744, toLat: 55.948591, lon: -3.198701))
        XCTAssertEqual(castle.text, "258.9")
        XCTAssertEqual(castle.degrees, Geodesy.initialBearing(fromLat: 55.94873, lon: -3.19744, toLat: 55.948591, lon: -3.198701))
        let north = try XCTUnwrap(Geodesy.composedBearing(fromLat: 0, lon: 0, toLat: 1, lon: -0.0006))
        XCTAssertGreaterThan(north.degrees, 359.95)
        XCTAssertEqual(north.text, "0.0")
        XCTAssertEqual(Geodesy.composedBearing(fromLat: 0, lon: 0, toLat: 1, lon: 0)?.text, "0.0")
        XCTAssertNil(Geodesy.composedBearing(fromLat: 55.95, lon: -3.19, toLat: 55.950001, lon: -3.19))
    }
}

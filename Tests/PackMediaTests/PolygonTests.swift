import PackMedia
import XCTest

final class PolygonTests: XCTestCase {
    private func poly(_ pts: [(Double, Double)]) -> Polygon { Polygon(points: pts.map { Polygon.Point($0.0, $0.1) }) }

    func testASquareIsClosedSimpleAndHasItsArea() {
        let p = poly([(0.1, 0.1), (0.5, 0.1), (0.5, 0.5), (0.1, 0.5), (0.1, 0.1)])
        XCTAssertTrue(p.isClosed)
        XCTAssertEqual(p.distinctVertexCount, 4)
        XCTAssertEqual(p.area, 0.16, accuracy: 1e-12)
        XCTAssertNil(p.selfIntersection)
        XCTAssertTrue(p.contains(.init(0.3, 0.3)))
        XCTAssertFalse(p.contains(.init(0.6, 0.3)))
    }

    func testABowTieIntersectsItself() {
        let p = poly([(0, 0), (1, 1), (1, 0), (0, 1), (0, 0)])
        XCTAssertNotNil(p.selfIntersection)
    }

    func testCollinearPointsAreDegenerate() {
        let p = poly([(0, 0), (0.5, 0.5), (1, 1), (0, 0)])
        XCTAssertEqual(p.area, 0)
        XCTAssertFalse(poly([(0, 0), (1, 0), (1, 1)]).isClosed)
    }

    func testCoverageCountsOverlapsOnce() {
        let a = poly([(0, 0), (0.5, 0), (0.5, 1), (0, 1), (0, 0)])
        let b = poly([(0.25, 0), (0.75, 0), (0.75, 1), (0.25, 1), (0.25, 0)])
        XCTAssertEqual(Polygon.coverage(of: [a]), 0.5, accuracy: 0.005)
        XCTAssertEqual(Polygon.coverage(of: [a, b]), 0.75, accuracy: 0.005)
        XCTAssertEqual(Polygon.coverage(of: []), 0)
    }
}

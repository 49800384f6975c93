import PackMedia
import XCTest

final class PolygonClippingTests: XCTestCase {
    private func polygon(_ points: [(Double, Double)]) -> Polygon { Polygon(points: points.map { Polygon.Point($0.0, $0.1) }) }

    func testAPolygonInsideTheRectangleIsKeptWhole() {
        let square = polygon([(0.2, 0.2), (0.4, 0.2), (0.4, 0.4), (0.2, 0.4), (0.2, 0.2)])
        let clipped = square.clipped(minX: 0, minY: 0, maxX: 1, maxY: 1)
        XCTAssertEqual(Polygon(points: clipped).area, square.area, accuracy: 1e-12)
    }

    func testAPolygonAcrossAnEdgeKeepsOnlyTheInsidePart() {
        let square = polygon([(0.2, 0.2), (0.6, 0.2), (0.6, 0.6), (0.2, 0.6), (0.2, 0.2)])
        let clipped = square.clipped(minX: 0.4, minY: 0, maxX: 1, maxY: 1)
        XCTAssertEqual(Polygon(points: clipped).area, 0.2 * 0.4, accuracy: 1e-12)
        XCTAssertTrue(clipped.allSatisfy { $0.x >= 0.4 - 1e-12 })
    }

    func testAPolygonOutsideOrOnlyTouchingTheRectangleLeavesNothing() {
        let left = polygon([(0.0, 0.0), (0.3, 0.0), (0.3, 1.0), (0.0, 1.0), (0.0, 0.0)])
        XCTAssertTrue(left.clipped(minX: 0.5, minY: 0, maxX: 1, maxY: 1).isEmpty)
        XCTAssertTrue(left.clipped(minX: 0.3, minY: 0, maxX: 1, maxY: 1).isEmpty, "sharing an edge has no area")
    }

    func testAConcavePolygonKeepsTheAreaInsideTheRectangle() {
        // A U shape: two arms 0.2 wide joined by a 0.2 base; the rectangle keeps the left arm and half the base.
        let u = polygon([(0, 0), (0.2, 0), (0.2, 0.8), (0.8, 0.8), (0.8, 0), (1, 0), (1, 1), (0, 1), (0, 0)])
        let clipped = u.clipped(minX: 0, minY: 0, maxX: 0.5, maxY: 1)
        XCTAssertEqual(Polygon(points: clipped).area, 0.2 * 0.8 + 0.5 * 0.2, accuracy: 1e-12)
    }
}

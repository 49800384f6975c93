/// A polygon in normalised frame coordinates, with the checks conjecture masks need.
public struct Polygon: Equatable, Sendable {
    public struct Point: Equatable, Sendable {
        public var x: Double
        public var y: Double
        public init(_ x: Double, _ y: Double) { self.x = x; self.y = y }
    }

    /// The ring as written (closed rings repeat the first point at the end).
    public var points: [Point]

    public init(points: [Point]) { self.points = points }

    public var isClosed: Bool { points.count >= 2 && points.first == points.last }

    /// The ring without the closing point.
    public var vertices: [Point] { isClosed ? Array(points.dropLast()) : points }

    /// Distinct vertices (consecutive duplicates collapsed).
    public var distinctVertexCount: Int {
        var n = 0
        var previous: Point?
        for p in vertices where p != previous { n += 1; previous = p }
        if n > 1, vertices.first == vertices.last { n -= 1 }
        return n
    }

    /// Unsigned area by the shoelace formula.
    public var area: Double {
        let v = vertices
        guard v.count >= 3 else { return 0 }
        var sum = 0.0
        for i in 0..<v.count {
            let a = v[i], b = v[(i + 1) % v.count]
            sum += a.x * b.y - b.x * a.y
        }
        return abs(sum) / 2
    }

    /// The first pair of non-adjacent edges that cross or touch, as edge indices, or nil for a simple polygon.
    public var selfIntersection: (Int, Int)? {
        let v = vertices
        let n = v.count
        guard n >= 4 else { return nil }
        for i in 0..<n {
            let a1 = v[i], a2 = v[(i + 1) % n]
            for j in (i + 1)..<n {
                // Adjacent edges share a vertex by construction.
                if j == i + 1 || (i == 0 && j == n - 1) { continue }
                let b1 = v[j], b2 = v[(j + 1) % n]
                if Self.segmentsIntersect(a1, a2, b1, b2) { return (i, j) }
            }
        }
        return nil
    }

    /// Even-odd point-in-polygon test.
    public func contains(_ p: Point) -> Bool {
        let v = vertices
        guard v.count >= 3 else { return false }
        var inside = false
        var j = v.count - 1
        for i in 0..<v.count {
            let a = v[i], b = v[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// The fraction of the unit square covered by the union of `polygons`, sampled at the centres of a grid
    /// (overlaps count once). Each row is filled by scanline spans (even-odd), so the cost is rows × edges, not
    /// rows × columns × edges. A 400×225 grid (the 16:9 frame) is accurate to well under a percent.
    public static func coverage(of polygons: [Polygon], columns: Int = 400, rows: Int = 225) -> Double {
        guard !polygons.isEmpty, columns > 0, rows > 0 else { return 0 }
        var covered = 0
        var row = [Bool](repeating: false, count: columns)
        var crossings: [Double] = []
        for r in 0..<rows {
            let y = (Double(r) + 0.5) / Double(rows)
            for c in 0..<columns { row[c] = false }
            for polygon in polygons {
                let v = polygon.vertices
                guard v.count >= 3 else { continue }
                crossings.removeAll(keepingCapacity: true)
                var j = v.count - 1
                for i in 0..<v.count {
                    let a = v[i], b = v[j]
                    if (a.y > y) != (b.y > y) { crossings.append((b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x) }
                    j = i
                }
                crossings.sort()
                var k = 0
                while k + 1 < crossings.count {
                    // Sample centres x = (c + 0.5) / columns inside [left, right).
                    let first = max(0, Int((crossings[k] * Double(columns) - 0.5).rounded(.up)))
                    let last = min(columns - 1, Int((crossings[k + 1] * Double(columns) - 0.5).rounded(.up)) - 1)
                    if first <= last { for c in first...last { row[c] = true } }
                    k += 2
                }
            }
            covered += row.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        return Double(covered) / Double(columns * rows)
    }

    private static func orientation(_ a: Point, _ b: Point, _ c: Point) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    private static func onSegment(_ a: Point, _ b: Point, _ p: Point) -> Bool {
        min(a.x, b.x) <= p.x && p.x <= max(a.x, b.x) && min(a.y, b.y) <= p.y && p.y <= max(a.y, b.y)
    }

    static func segmentsIntersect(_ p1: Point, _ p2: Point, _ q1: Point, _ q2: Point) -> Bool {
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2)
        let d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0 && onSegment(q1, q2, p1) { return true }
        if d2 == 0 && onSegment(q1, q2, p2) { return true }
        if d3 == 0 && onSegment(p1, p2, q1) { return true }
        if d4 == 0 && onSegment(p1, p2, q2) { return true }
        return false
    }
}

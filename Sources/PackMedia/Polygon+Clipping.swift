extension Polygon {
    /// The part of the polygon inside the axis-aligned rectangle [minX, maxX] × [minY, maxY], by Sutherland–Hodgman
    /// clipping against its four edges (exact for a simple polygon's area; a concave polygon split by the rectangle
    /// keeps zero-width joins, which draw and hit-test as nothing). Returns the open ring of vertices, empty when
    /// nothing of positive area is inside. The preview uses it to hatch a mask region on a crop of the frame.
    public func clipped(minX: Double, minY: Double, maxX: Double, maxY: Double) -> [Point] {
        var ring = vertices
        let edges: [(inside: (Point) -> Bool, cross: (Point, Point) -> Point)] = [
            ({ $0.x >= minX }, { a, b in Point(minX, a.y + (b.y - a.y) * (minX - a.x) / (b.x - a.x)) }),
            ({ $0.x <= maxX }, { a, b in Point(maxX, a.y + (b.y - a.y) * (maxX - a.x) / (b.x - a.x)) }),
            ({ $0.y >= minY }, { a, b in Point(a.x + (b.x - a.x) * (minY - a.y) / (b.y - a.y), minY) }),
            ({ $0.y <= maxY }, { a, b in Point(a.x + (b.x - a.x) * (maxY - a.y) / (b.y - a.y), maxY) }),
        ]
        for edge in edges {
            guard !ring.isEmpty else { break }
            var out: [Point] = []
            var previous = ring[ring.count - 1]
            for current in ring {
                switch (edge.inside(current), edge.inside(previous)) {
                case (true, true): out.append(current)
                case (true, false): out.append(edge.cross(previous, current)); out.append(current)
                case (false, true): out.append(edge.cross(previous, current))
                case (false, false): break
                }
                previous = current
            }
            ring = out
        }
        return Polygon(points: ring).area > 1e-12 ? ring : []
    }
}

extension QRCode {
    /// The code as a greyscale PNG: `moduleSize` pixels a module, inside a quiet zone of `quietZone` light modules
    /// (4 is the minimum the QR standard asks for).
    public func png(moduleSize: Int = 8, quietZone: Int = 4) throws -> [UInt8] {
        let side = (size + 2 * quietZone) * moduleSize
        var pixels = [UInt8](repeating: 255, count: side * side)
        for y in 0..<size {
            for x in 0..<size where isDark(x, y) {
                for dy in 0..<moduleSize {
                    let row = ((y + quietZone) * moduleSize + dy) * side + (x + quietZone) * moduleSize
                    for dx in 0..<moduleSize { pixels[row + dx] = 0 }
                }
            }
        }
        return try GreyPNG.encode(width: side, height: side, pixels: pixels)
    }
}

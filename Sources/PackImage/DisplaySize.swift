/// The size a plate is shown at: its own size, or scaled down (never up) so its longer side fits `maxLongSide`,
/// keeping the aspect ratio to the nearest pixel.
public struct DisplaySize: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let width: Int
    public let height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public static func fitting(width: Int, height: Int, maxLongSide: Int) -> DisplaySize {
        let long = max(width, height)
        guard long > maxLongSide, maxLongSide > 0 else { return DisplaySize(width: width, height: height) }
        let scale = Double(maxLongSide) / Double(long)
        return DisplaySize(width: max(1, Int((Double(width) * scale).rounded())), height: max(1, Int((Double(height) * scale).rounded())))
    }

    public var description: String { "\(width)x\(height)" }
}

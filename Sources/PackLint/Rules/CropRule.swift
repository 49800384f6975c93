import PackModel

/// The 9:16 plate is a crop of the 16:9 frame: its rectangle must lie inside the frame and have a 9:16 pixel aspect.
struct CropRule: LintRule {
    static let outside = RuleCode("PT0208", .error, "the 9:16 crop rectangle extends outside the 16:9 frame")
    static let aspect = RuleCode("PT0209", .error, "the 9:16 crop rectangle does not have a 9:16 pixel aspect")
    static let codes = [outside, aspect]

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        for source in context.scenes {
            guard let r = source.crops?.portrait else { continue }
            if r.x + r.width > 1 + 1e-9 || r.y + r.height > 1 + 1e-9 {
                out.append(Self.outside.diagnostic("crop x+width = \(format(r.x + r.width)), y+height = \(format(r.y + r.height)); both must be at most 1",
                                                   at: source.location("/crops/9x16"), hint: "move or shrink the rectangle so it fits the frame"))
            }
            // In pixels of a 16:9 frame, the crop is (width·16) × (height·9); 9:16 needs width·16 / (height·9) = 9/16.
            guard r.height > 0 else { continue }
            let pixelAspect = (r.width * 16) / (r.height * 9)
            let wanted = 9.0 / 16.0
            if abs(pixelAspect - wanted) / wanted > 0.01 {
                let width = r.height * 81 / 256
                out.append(Self.aspect.diagnostic("the crop is \(format(pixelAspect, digits: 4)):1 in pixels, not 9:16 (0.5625:1)",
                                                  at: source.location("/crops/9x16/width"),
                                                  hint: "for height \(format(r.height)) the width must be \(format(width, digits: 8)) (height × 81/256)"))
            }
        }
        return out
    }
}

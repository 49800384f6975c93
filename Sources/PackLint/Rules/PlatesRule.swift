import PackAuthoring
import PackMedia
import PackModel

/// Each plate is a real HEIC whose displayed size has the aspect its crop declares (±1%) and at least phone
/// resolution. Only the file's boxes are read, never its image data.
struct PlatesRule: LintRule {
    static let notHEIC = RuleCode("PT0305", .error, "a plate is not a readable HEIC image")
    static let aspect = RuleCode("PT0306", .error, "a plate's size does not have its declared aspect (±1%)")
    static let resolution = RuleCode("PT0307", .error, "a plate is below the minimum resolution")
    static let codedSize = RuleCode("PT0311", .error, "a plate's coded picture is not the size its header declares, or is over the pixel cap")
    static let placeholder = RuleCode("PT0312", .error, "a plate is the placeholder `packtool new stop` wrote")
    static let codes = [notHEIC, aspect, resolution, codedSize, placeholder]
    /// The preview refuses plates above this many coded pixels (HEIFDecoder's cap); lint says so first.
    static let maxPixels = 64_000_000

    func check(_ context: LintContext) -> [Diagnostic] {
        var out: [Diagnostic] = []
        let limits = context.limits
        for source in context.scenes {
            for (i, era) in source.eraItems {
                for (path, key, wanted, landscape) in [(era.layers.landscape, "16x9", 16.0 / 9.0, true), (era.layers.portrait, "9x16", 9.0 / 16.0, false)] {
                    guard !path.hasPrefix("/"), let url = source.inside(path) else { continue }
                    let at = source.location("/eras/\(i)/layers/\(key)")
                    if context.isPlaceholderPlate(url) {
                        out.append(Self.placeholder.diagnostic("\(source.display(path)) is a placeholder, not the era's plate", at: at,
                                                               hint: "replace the placeholder plate with the \(key.replacing("x", with: ":")) plate for \(era.year), exported as HEIC (e.g. heif-enc plate.png -o \(path))"))
                        continue
                    }
                    guard let info = context.heif(url) else { continue }
                    guard info.isHEIC, info.errors.isEmpty, let size = info.displaySize, size.width > 0, size.height > 0 else {
                        let hint = "export the plate as HEIC (e.g. heif-enc plate.png -o \(path))"
                        if !info.isHEIC, let format = context.signature(url), !format.isHEIF {
                            out.append(Self.notHEIC.diagnostic("\(source.display(path)) is \(format.name), not HEIC", at: at, hint: hint))
                            continue
                        }
                        let why = info.errors.first ?? (info.isHEIC ? "no image size" : "its brands (\(([info.majorBrand].compactMap { $0 } + info.compatibleBrands).joined(separator: ", "))) are not HEIC")
                        out.append(Self.notHEIC.diagnostic("\(source.display(path)) is not a readable HEIC image: \(why)", at: at, hint: hint))
                        continue
                    }
                    if let refusal = info.codedSizeRefusal(maxPixels: Self.maxPixels) {
                        out.append(Self.codedSize.diagnostic("\(source.display(path)): \(refusal); the preview refuses it before decoding", at: at,
                                                             hint: "re-export the plate (e.g. heif-enc plate.png -o \(path)) so its 'ispe' header and its HEVC stream agree"))
                    }
                    let actual = Double(size.width) / Double(size.height)
                    if abs(actual - wanted) / wanted > 0.01 {
                        out.append(Self.aspect.diagnostic("\(source.display(path)) is \(size.width)×\(size.height) (\(format(actual, digits: 3)):1), not \(key.replacing("x", with: ":"))",
                                                          at: at, hint: "re-export the plate with the \(key.replacing("x", with: ":")) crop"))
                    }
                    let long = max(size.width, size.height), short = min(size.width, size.height)
                    if long < limits.minPlateLongSide || short < limits.minPlateShortSide {
                        let needed = landscape ? "\(limits.minPlateLongSide)×\(limits.minPlateShortSide)" : "\(limits.minPlateShortSide)×\(limits.minPlateLongSide)"
                        out.append(Self.resolution.diagnostic("\(source.display(path)) is \(size.width)×\(size.height), below \(needed)", at: at,
                                                              hint: "export at phone resolution or larger"))
                    }
                }
            }
        }
        return out
    }
}

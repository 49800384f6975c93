#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// What a HEIC/HEIF file says about its primary image, read from `ftyp` and `meta` only (never the coded data).
public struct HEIFInfo: Equatable, Sendable {
    public var majorBrand: String?
    public var compatibleBrands: [String] = []
    public var topLevel: [String] = []
    public var primaryItemID: UInt32?
    /// The primary item's type (`hvc1`, `grid`, `av01`, …).
    public var primaryItemType: String?
    /// Stored size from the primary item's `ispe`.
    public var width: UInt32?
    public var height: UInt32?
    /// Property box types associated with the primary item, in `ipma` order.
    public var primaryProperties: [String] = []
    /// Counter-clockwise rotation from `irot`, in degrees (0, 90, 180, 270).
    public var rotation: Int = 0
    /// The clean-aperture size from `clap`, when present (rounded down as libheif does).
    public var cleanAperture: (width: Int, height: Int)?
    /// Problems that stop the image from being read as HEIC.
    public var errors: [String] = []
    /// Every HEVC-coded item (`hvc1`): what its `ispe` says against what its parameter sets code.
    public var codedImages: [HEIFCodedImage] = []
    /// Item types in the file whose coded size the probe cannot read (`av01`, `jpeg`, …): a decoder cannot be told
    /// before decoding how large they really are.
    public var unmeasuredItemTypes: [String] = []
    /// HEVC items (measured), derivations of other items, and metadata items.
    static let measuredOrDerivedTypes: Set<String> = ["hvc1", "grid", "iden", "iovl", "Exif", "mime", "uri "]

    /// Why decoding must be refused under a cap of `maxPixels`, from the coded streams rather than the headers: the
    /// first coded item over the cap, whose coded size is not its declared one, or whose parameter sets cannot be read.
    public func codedSizeRefusal(maxPixels: Int) -> String? {
        if let type = unmeasuredItemTypes.first {
            return "it has an image coded as '\(type)', whose coded size cannot be checked before decoding (plates are HEVC)"
        }
        return codedImages.lazy.compactMap { $0.refusal(maxPixels: maxPixels) }.first
    }

    /// The size a viewer shows: `ispe`, cropped by `clap`, then rotated by `irot`.
    public var displaySize: (width: Int, height: Int)? {
        guard let w = width, let h = height else { return nil }
        var size = cleanAperture ?? (Int(w), Int(h))
        if rotation == 90 || rotation == 270 { size = (size.1, size.0) }
        return size
    }

    /// True for files whose brands say HEIC/HEIF image (not AVIF, not a video).
    public var isHEIC: Bool {
        let brands = Set([majorBrand].compactMap { $0 } + compatibleBrands)
        return !brands.isDisjoint(with: ["heic", "heix", "mif1", "heim", "heis"])
    }

    public static func == (a: HEIFInfo, b: HEIFInfo) -> Bool {
        a.majorBrand == b.majorBrand && a.compatibleBrands == b.compatibleBrands && a.topLevel == b.topLevel
            && a.primaryItemID == b.primaryItemID && a.width == b.width && a.height == b.height
            && a.primaryProperties == b.primaryProperties && a.rotation == b.rotation && a.errors == b.errors
            && a.codedImages == b.codedImages && a.unmeasuredItemTypes == b.unmeasuredItemTypes
            && a.cleanAperture?.width == b.cleanAperture?.width && a.cleanAperture?.height == b.cleanAperture?.height
    }
}

/// Reads the HEIF structure (ISO/IEC 23008-12): ftyp brands, meta → pitm, iinf/infe, iprp → ipco + ipma.
public struct HEIFProbe {
    public init() {}

    public func probe(_ source: ByteSource) -> HEIFInfo {
        var info = HEIFInfo()
        let walker = BoxWalker(source: source)
        let fileType = FileType(walker, kind: "an ISO-BMFF file")
        let top = fileType.top
        let topError = fileType.errors.first
        info.topLevel = top.map(\.type)
        info.majorBrand = fileType.majorBrand
        info.compatibleBrands = fileType.compatibleBrands
        info.errors = fileType.errors
        guard fileType.found else { return info }
        guard let meta = top.first(where: { $0.type == "meta" }) else {
            if top.contains(where: { $0.type == "mini" }) {
                info.errors.append("unsupported: low-overhead HEIF ('mini' box, brand mif3) has no 'meta' box")
            } else if topError == nil {
                info.errors.append("no 'meta' box: not a HEIF image")
            }
            return info
        }
        // meta is a full box: 4 bytes of version and flags before its children.
        let (children, metaError) = walker.children(from: meta.payloadOffset + 4, to: meta.end)
        if let metaError { info.errors.append("in 'meta': " + metaError) }
        if let pitm = children.first(where: { $0.type == "pitm" }), let p = walker.payload(pitm, limit: 64) {
            var r = FieldReader(p)
            let version = r.u8() ?? 0
            _ = r.skip(3)
            info.primaryItemID = version == 0 ? r.u16().map(UInt32.init) : r.u32()
        }
        guard let primary = info.primaryItemID else {
            info.errors.append("no primary item ('pitm')")
            return info
        }
        let types = children.first(where: { $0.type == "iinf" }).map { itemTypes(in: $0, walker: walker) } ?? [:]
        info.primaryItemType = types[primary]
        guard let iprp = children.first(where: { $0.type == "iprp" }) else {
            info.errors.append("no item properties ('iprp')")
            return info
        }
        let (props, propsError) = walker.children(from: iprp.payloadOffset, to: iprp.end)
        if let propsError { info.errors.append("in 'iprp': " + propsError) }
        guard let ipco = props.first(where: { $0.type == "ipco" }) else {
            info.errors.append("no property container ('ipco')")
            return info
        }
        let (properties, ipcoError) = walker.children(from: ipco.payloadOffset, to: ipco.end)
        if let ipcoError { info.errors.append("in 'ipco': " + ipcoError) }
        var associated: [UInt32: [Int]] = [:]
        for ipma in props where ipma.type == "ipma" {
            associated.merge(associations(in: ipma, walker: walker)) { $0 + $1 }
        }
        readPrimaryProperties(associated[primary] ?? [], from: properties, walker: walker, into: &info)
        if info.width == nil { info.errors.append("the primary item has no 'ispe' (image size) property") }
        let locations = children.first(where: { $0.type == "iloc" }).flatMap { walker.payload($0).flatMap(ItemLocations.init) }
        let idat = children.first(where: { $0.type == "idat" })
        var budget = NALScanner.maxUnitsPerFile
        for (item, type) in types.sorted(by: { $0.key < $1.key }) where type == "hvc1" {
            info.codedImages.append(codedImage(item, properties: (associated[item] ?? []).compactMap { $0 >= 1 && $0 <= properties.count ? properties[$0 - 1] : nil },
                                               location: locations?.items[item], idat: idat, walker: walker, budget: &budget))
        }
        info.unmeasuredItemTypes = Array(Set(types.values.filter { !HEIFInfo.measuredOrDerivedTypes.contains($0) })).sorted()
        return info
    }

    /// The primary item's properties, in the order `ipma` associates them: their types, and the size (`ispe`),
    /// rotation (`irot`) and clean aperture (`clap`) lint judges. An index outside `ipco` is an error, not a crash.
    private func readPrimaryProperties(_ indices: [Int], from properties: [Box], walker: BoxWalker, into info: inout HEIFInfo) {
        for index in indices {
            guard index >= 1, index <= properties.count else {
                info.errors.append("property index \(index) is outside 'ipco'")
                continue
            }
            let box = properties[index - 1]
            info.primaryProperties.append(box.type)
            let payload = walker.payload(box, limit: 4096) ?? []
            var r = FieldReader(payload)
            switch box.type {
            case "ispe":
                _ = r.skip(4)
                if let w = r.u32(), let h = r.u32() {
                    info.width = w
                    info.height = h
                }
            case "irot":
                if let angle = r.u8() { info.rotation = Int(angle & 3) * 90 }
            case "clap":
                if let wn = r.u32(), let wd = r.u32(), let hn = r.u32(), let hd = r.u32(), wd != 0, hd != 0, info.cleanAperture == nil {
                    info.cleanAperture = (Int(wn / wd), Int(hn / hd))
                }
            default: break
            }
        }
    }

    /// What one `hvc1` item declares (`ispe`) and what its parameter sets (`hvcC`, then its own data) code.
    private func codedImage(_ item: UInt32, properties: [Box], location: ItemLocations.Location?, idat: Box?, walker: BoxWalker,
                            budget: inout Int) -> HEIFCodedImage {
        var image = HEIFCodedImage(item: item)
        if let ispe = properties.first(where: { $0.type == "ispe" }), let p = walker.payload(ispe, limit: 64) {
            var r = FieldReader(p)
            if r.skip(4), let w = r.u32(), let h = r.u32() { (image.declaredWidth, image.declaredHeight) = (w, h) }
        }
        guard let hvcC = properties.first(where: { $0.type == "hvcC" }), let payload = walker.payload(hvcC, limit: 1 << 16),
              let configuration = HEVCParameterSets.configuration(payload) else {
            image.problem = "no readable HEVC configuration ('hvcC')"
            return image
        }
        guard let location else {
            image.problem = "no location ('iloc') for its data"
            return image
        }
        var extents = location.extents
        switch location.method {
        case 0: break
        case 1:
            guard let idat else {
                image.problem = "its data is in an 'idat' box the file does not have"
                return image
            }
            for (i, extent) in extents.enumerated() {
                guard extent.offset <= idat.payloadSize, extent.length <= idat.payloadSize - extent.offset else {
                    image.problem = "its data runs past the 'idat' box"
                    return image
                }
                extents[i].offset += idat.payloadOffset
            }
        default:
            image.problem = "its data is built from another item (construction method \(location.method)), which is not supported"
            return image
        }
        for (i, extent) in extents.enumerated() {
            // A length of 0 means "to the end of the file" (ISO/IEC 14496-12).
            guard extent.offset <= walker.source.size else {
                image.problem = "its data lies past the end of the file"
                return image
            }
            if extent.length == 0 { extents[i].length = walker.source.size - extent.offset }
            guard extents[i].length <= walker.source.size - extent.offset else {
                image.problem = "its data runs past the end of the file"
                return image
            }
        }
        let (inBand, problem) = NALScanner(source: walker.source, extents: extents, lengthSize: configuration.lengthSize).parameterSets(budget: &budget)
        if let problem {
            image.problem = problem
            return image
        }
        for sps in configuration.sps + inBand {
            guard let size = HEVCParameterSets.pictureSize(ofSPS: sps) else {
                image.problem = "an HEVC sequence parameter set cannot be read"
                return image
            }
            if image.picture.map({ size.codedPixels > $0.codedPixels }) ?? true { image.picture = size }
        }
        return image
    }

    /// Every item's type from `iinf`/`infe` (versions 2 and 3 carry a four-character type).
    private func itemTypes(in iinf: Box, walker: BoxWalker) -> [UInt32: String] {
        guard let head = walker.source.read(at: iinf.payloadOffset, count: 4) else { return [:] }
        let countSize: UInt64 = head[0] == 0 ? 2 : 4
        let (entries, _) = walker.children(from: iinf.payloadOffset + 4 + countSize, to: iinf.end)
        var types: [UInt32: String] = [:]
        for infe in entries where infe.type == "infe" {
            guard let p = walker.payload(infe, limit: 4096) else { continue }
            var r = FieldReader(p)
            guard let version = r.u8(), version >= 2, r.skip(3) else { continue }
            guard let id = version == 2 ? r.u16().map(UInt32.init) : r.u32(), r.skip(2), let type = r.fourCC() else { continue }
            if types[id] == nil { types[id] = type }
        }
        return types
    }

    /// Property indices (1-based) associated with each item in one `ipma` box.
    private func associations(in ipma: Box, walker: BoxWalker) -> [UInt32: [Int]] {
        guard let p = walker.payload(ipma) else { return [:] }
        var r = FieldReader(p)
        guard let version = r.u8(), let f1 = r.u8(), let f2 = r.u8(), let f3 = r.u8(), let count = r.u32() else { return [:] }
        let wideIndex = (UInt32(f1) << 16 | UInt32(f2) << 8 | UInt32(f3)) & 1 == 1
        var all: [UInt32: [Int]] = [:]
        for _ in 0..<min(count, UInt32(p.count)) {
            guard let id = version < 1 ? r.u16().map(UInt32.init) : r.u32(), let n = r.u8() else { return all }
            var found: [Int] = []
            for _ in 0..<n {
                guard let raw = wideIndex ? r.u16() : r.u8().map(UInt16.init) else { return all }
                found.append(Int(raw & (wideIndex ? 0x7FFF : 0x7F)))
            }
            if all[id] == nil { all[id] = found }
        }
        return all
    }
}

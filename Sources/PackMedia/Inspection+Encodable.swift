/// JSON forms for `packtool inspect`. WebVTT uses the W3C `VTTCue` / `VTTRegion` attribute names, so web developers
/// read the output as they read a browser's `track.cues`; `line` and `position` are "auto" or a number.
extension VTTCue.AutoOrNumber: Encodable {
    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .auto: try c.encode("auto")
        case .number(let n): try c.encode(n)
        }
    }
}

extension VTTRegion: Encodable {
    enum CodingKeys: String, CodingKey { case id, width, lines, regionAnchorX, regionAnchorY, viewportAnchorX, viewportAnchorY, scroll }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(width, forKey: .width)
        try c.encode(lines, forKey: .lines)
        try c.encode(regionAnchorX, forKey: .regionAnchorX)
        try c.encode(regionAnchorY, forKey: .regionAnchorY)
        try c.encode(viewportAnchorX, forKey: .viewportAnchorX)
        try c.encode(viewportAnchorY, forKey: .viewportAnchorY)
        try c.encode(scroll, forKey: .scroll)
    }
}

extension VTTCue: Encodable {
    enum CodingKeys: String, CodingKey {
        case id, startTime, endTime, text, vertical, snapToLines, line, lineAlign, position, positionAlign, size, align, region
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(startTime, forKey: .startTime)
        try c.encode(endTime, forKey: .endTime)
        try c.encode(text, forKey: .text)
        try c.encode(vertical, forKey: .vertical)
        try c.encode(snapToLines, forKey: .snapToLines)
        try c.encode(line, forKey: .line)
        try c.encode(lineAlign, forKey: .lineAlign)
        try c.encode(position, forKey: .position)
        try c.encode(positionAlign, forKey: .positionAlign)
        try c.encode(size, forKey: .size)
        try c.encode(align, forKey: .align)
        try c.encode(region, forKey: .region)
    }
}

extension WebVTTFile.Issue: Encodable {
    enum CodingKeys: String, CodingKey { case severity, line, column, message }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(severity.rawValue, forKey: .severity)
        try c.encode(line, forKey: .line)
        try c.encode(column, forKey: .column)
        try c.encode(message, forKey: .message)
    }
}

extension WebVTTFile: Encodable {
    enum CodingKeys: String, CodingKey { case isWebVTT, header, regions, styles, cues, errors }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(isWebVTT, forKey: .isWebVTT)
        try c.encode(header, forKey: .header)
        try c.encode(regions, forKey: .regions)
        try c.encode(styles, forKey: .styles)
        try c.encode(cues, forKey: .cues)
        try c.encode(issues, forKey: .errors)
    }
}

extension HEIFInfo: Encodable {
    enum CodingKeys: String, CodingKey {
        case majorBrand, compatibleBrands, topLevelBoxes, primaryItemID, primaryItemType, width, height, properties, rotation
        case cleanAperture, displayWidth, displayHeight, isHEIC, errors
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(majorBrand, forKey: .majorBrand)
        try c.encode(compatibleBrands, forKey: .compatibleBrands)
        try c.encode(topLevel, forKey: .topLevelBoxes)
        try c.encodeIfPresent(primaryItemID, forKey: .primaryItemID)
        try c.encodeIfPresent(primaryItemType, forKey: .primaryItemType)
        try c.encodeIfPresent(width, forKey: .width)
        try c.encodeIfPresent(height, forKey: .height)
        try c.encode(primaryProperties, forKey: .properties)
        try c.encode(rotation, forKey: .rotation)
        if let clap = cleanAperture { try c.encode([clap.width, clap.height], forKey: .cleanAperture) }
        try c.encodeIfPresent(displaySize?.width, forKey: .displayWidth)
        try c.encodeIfPresent(displaySize?.height, forKey: .displayHeight)
        try c.encode(isHEIC, forKey: .isHEIC)
        try c.encode(errors, forKey: .errors)
    }
}

extension MP4AudioInfo: Encodable {
    enum CodingKeys: String, CodingKey {
        case majorBrand, compatibleBrands, topLevelBoxes, handler, codec, sampleEntry, objectTypeIndication, audioObjectType
        case channels, sampleRate, trackCount, movieTimescale, movieDuration, mediaTimescale, mediaDuration, editedDuration, duration, isAAC, errors
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(majorBrand, forKey: .majorBrand)
        try c.encode(compatibleBrands, forKey: .compatibleBrands)
        try c.encode(topLevel, forKey: .topLevelBoxes)
        try c.encodeIfPresent(handler, forKey: .handler)
        try c.encode(codecDescription, forKey: .codec)
        try c.encodeIfPresent(sampleEntry, forKey: .sampleEntry)
        try c.encodeIfPresent(objectTypeIndication, forKey: .objectTypeIndication)
        try c.encodeIfPresent(audioObjectType, forKey: .audioObjectType)
        try c.encodeIfPresent(channels, forKey: .channels)
        try c.encodeIfPresent(sampleRate, forKey: .sampleRate)
        try c.encode(trackCount, forKey: .trackCount)
        try c.encodeIfPresent(movieTimescale, forKey: .movieTimescale)
        try c.encodeIfPresent(movieDuration, forKey: .movieDuration)
        try c.encodeIfPresent(mediaTimescale, forKey: .mediaTimescale)
        try c.encodeIfPresent(mediaDuration, forKey: .mediaDuration)
        try c.encodeIfPresent(editedDuration, forKey: .editedDuration)
        try c.encodeIfPresent(duration, forKey: .duration)
        try c.encode(isAAC, forKey: .isAAC)
        try c.encode(errors, forKey: .errors)
    }
}

/// A parsed JSON value re-encoded as itself (object members in source order are re-sorted by the encoder's options).
extension JSONNode: Encodable {
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public func encode(to encoder: Encoder) throws {
        switch value {
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for m in members { try c.encode(m.value, forKey: Key(m.key)) }
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(item) }
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .number(let raw, let d):
            var c = encoder.singleValueContainer()
            if let i = Int64(raw) { try c.encode(i) } else { try c.encode(d) }
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        }
    }
}

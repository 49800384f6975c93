import Foundation
import PackAuthoring
import TestSupport

/// Stop folders of the example pack, by route position.
let S1 = "stops/01-castle-esplanade", S2 = "stops/02-gladstones-land", S3 = "stops/03-mercat-cross", S4 = "stops/04-tron-kirk"
let S5 = "stops/05-netherbow", S6 = "stops/06-canongate-tolbooth", S7 = "stops/07-abbey-strand"

/// A one-era mask for S1 with one region; the pieces replace parts of a well-formed region.
func mask(polygon: String = "[[0.1,0.1],[0.5,0.1],[0.5,0.5],[0.1,0.5],[0.1,0.1]]", note: String = "why", sources: String = "[\"gordon-1647\"]",
          year: String = "1647", id: String = "r") -> String {
    "{\"eras\": [{\"year\": \(year), \"regions\": [{\"id\": \"\(id)\", \"level\": \"conjecture\", \"polygon\": \(polygon), \"note\": \"\(note)\", \"sources\": \(sources)}]}]}\n"
}

/// Cue text for a transcript made of the given timing lines, each with a short sentence.
func vtt(_ timings: [String], text: String = "A short sentence.") -> String {
    "WEBVTT\n\n" + timings.map { "\($0)\n\(text)\n" }.joined(separator: "\n")
}

/// Rewrites every cue timestamp of a transcript through `map` (the captioning mistakes the voice rules find).
func retime(_ copy: PackCopy, _ relative: String, _ map: (Double) -> Double) throws {
    let url = copy.root.appendingPathComponent(relative)
    var text = try String(contentsOf: url, encoding: .utf8)
    let pattern = try NSRegularExpression(pattern: #"(\d\d):(\d\d):(\d\d)\.(\d\d\d)"#)
    for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
        let field = { (i: Int) in Double(text[Range(match.range(at: i), in: text)!])! }
        let ms = Int((max(0, map(field(1) * 3600 + field(2) * 60 + field(3) + field(4) / 1000)) * 1000).rounded())
        text.replaceSubrange(Range(match.range, in: text)!, with: String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000))
    }
    try text.write(to: url, atomically: true, encoding: .utf8)
}

/// Every rule code with a minimal broken input. RuleCatalogueTests checks each finding's file, line and column, and
/// that every code the linter knows appears here.
let ruleCases: [RuleCase] = [
    // Structure
    RuleCase("PT0100", "pack.json", at: "]", after: "\"city\"") { try $0.edit("pack.json", replacing: "\"city\": \"Edinburgh\",", with: "\"city\": \"Edinburgh\", ]") },
    RuleCase("PT0101", "pack.json", at: "\"city\": \"Leith\"") { try $0.edit("pack.json", replacing: "\"city\": \"Edinburgh\",", with: "\"city\": \"Edinburgh\", \"city\": \"Leith\",") },
    RuleCase("PT0102", "\(S1)/scene.json", at: "\"elevation\"") { try $0.edit("\(S1)/scene.json", replacing: "\"accuracy\": 15", with: "\"accuracy\": 15, \"elevation\": 3") },
    RuleCase("PT0103", "\(S1)/scene.json", at: "{") { try $0.edit("\(S1)/scene.json", replacing: "  \"title\": \"The Castle Esplanade\",\n", with: "") },
    RuleCase("PT0104", "\(S1)/scene.json", at: "\"64\"") { try $0.edit("\(S1)/scene.json", replacing: "\"fov\": 64", with: "\"fov\": \"64\"") },
    RuleCase("PT0105", "\(S1)/scene.json", at: "360") { try $0.edit("\(S1)/scene.json", replacing: "\"bearing\": 258.9", with: "\"bearing\": 360") },
    RuleCase("PT0106", S2, at: nil) { try $0.remove("\(S2)/uncertainty.json") },
    RuleCase("PT0108", "\(S1)/scene.json", at: "\"REPLACE ME: the stop's title\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"title\": \"The Castle Esplanade\"", with: "\"title\": \"REPLACE ME: the stop's title\"")
    },
    RuleCase("PT0107", "\(S1)/scene.json", at: "{", after: "\"view\":") { try $0.edit("\(S1)/scene.json", replacing: "\"fov\": 64", with: "\"fov\": \"64\"") },
    // Files
    RuleCase("PT0110", "\(S1)/scene.json", at: "\"layers/1880-9x16.heic\"") { try $0.remove("\(S1)/layers/1880-9x16.heic") },
    RuleCase("PT0111", "\(S1)/scene.json", at: "\"../story.m4a\"") { try $0.edit("\(S1)/scene.json", replacing: "\"audio\": \"story.m4a\"", with: "\"audio\": \"../story.m4a\"") },
    RuleCase("PT0112", "\(S4)/notes.txt", at: nil) { try $0.write("\(S4)/notes.txt", "draft") },
    RuleCase("PT0113", "\(S4)/Cafe\u{301}.txt", at: nil) { try $0.write("\(S4)/Cafe\u{301}.txt", "x") },
    RuleCase("PT0114", "\(S4)/notes copy.txt", at: nil) { try $0.write("\(S4)/notes copy.txt", "x") },
    RuleCase("PT0115", "\(S4)/story.vtt", at: nil) { try $0.write("\(S4)/Story.vtt", "WEBVTT\n") },
    RuleCase("PT0116", "\(S4)/link.heic", at: nil) {
        try FileManager.default.createSymbolicLink(atPath: $0.root.appendingPathComponent("\(S4)/link.heic").path, withDestinationPath: "layers/1765-16x9.heic")
    },
    // Geometry
    RuleCase("PT0201", "\(S1)/scene.json", at: "{\n    \"lat\": 56.94873") { try $0.edit("\(S1)/scene.json", replacing: "\"lat\": 55.94873", with: "\"lat\": 56.94873") },
    RuleCase("PT0202", "\(S1)/scene.json", at: "{\n      \"lat\": 54.948591") { try $0.edit("\(S1)/scene.json", replacing: "\"lat\": 55.948591", with: "\"lat\": 54.948591") },
    RuleCase("PT0203", "\(S1)/scene.json", at: "250.9") { try $0.edit("\(S1)/scene.json", replacing: "\"bearing\": 258.9", with: "\"bearing\": 250.9") },
    RuleCase("PT0204", "\(S1)/scene.json", at: "150") { try $0.edit("\(S1)/scene.json", replacing: "\"fov\": 64", with: "\"fov\": 150") },
    RuleCase("PT0205", "\(S1)/scene.json", at: "{\n      \"lat\": 55.94873") {
        try $0.edit("\(S1)/scene.json", replacing: "\"lat\": 55.948591,\n      \"lon\": -3.198701", with: "\"lat\": 55.94873,\n      \"lon\": -3.19744")
    },
    RuleCase("PT0206", "pack.json", at: "\"02-gladstones-land\"") {
        try $0.edit("pack.json", replacing: "\"sizeBudget\": 250000000", with: "\"sizeBudget\": 250000000, \"lint\": {\"maxLegDistance\": 100}")
    },
    RuleCase("PT0207", "pack.json", at: "\"03-mercat-cross\"") { try $0.edit("pack.json", replacing: "\"geofenceRadius\": 30", with: "\"geofenceRadius\": 120") },
    RuleCase("PT0208", "\(S1)/scene.json", at: "{\n      \"x\": 0.8") { try $0.edit("\(S1)/scene.json", replacing: "\"x\": 0.34179688", with: "\"x\": 0.8") },
    RuleCase("PT0209", "\(S1)/scene.json", at: "0.4", after: "\"width\"") { try $0.edit("\(S1)/scene.json", replacing: "\"width\": 0.31640625", with: "\"width\": 0.4") },
    RuleCase("PT0210", "pack.json", at: "{\n    \"south\": 55.96") { try $0.edit("pack.json", replacing: "\"south\": 55.946", with: "\"south\": 55.96") },
    // Eras and plates
    RuleCase("PT0301", "\(S1)/scene.json", at: "1647,\n      \"label\": \"Monuments") { try $0.edit("\(S1)/scene.json", replacing: "\"year\": 1880,", with: "\"year\": 1647,") },
    RuleCase("PT0302", "\(S1)/scene.json", at: "1700") { try $0.edit("\(S1)/scene.json", replacing: "\"year\": 1880,", with: "\"year\": 1700,") },
    RuleCase("PT0303", "\(S1)/scene.json", at: "2990") { try $0.edit("\(S1)/scene.json", replacing: "\"year\": 1880,", with: "\"year\": 2990,") },
    RuleCase("PT0304", "\(S1)/scene.json", at: "[\n    {\n      \"year\": 1647") { try $0.edit("\(S1)/scene.json", replacing: "\"default\": true,", with: "") },
    RuleCase("PT0305", "\(S1)/scene.json", at: "\"layers/1824-16x9.heic\"") { try $0.write("\(S1)/layers/1824-16x9.heic", "not an image at all") },
    RuleCase("PT0306", "\(S1)/scene.json", at: "\"layers/1824-9x16.heic\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"16x9\": \"layers/1824-16x9.heic\"", with: "\"16x9\": \"layers/1824-9x16.heic\"")
    },
    RuleCase("PT0307", "\(S1)/scene.json", at: "\"layers/1824-16x9.heic\"") {
        try FileManager.default.removeItem(at: $0.root.appendingPathComponent("\(S1)/layers/1824-16x9.heic"))
        try MediaFiles.heic(width: 640, height: 360, at: $0.root.appendingPathComponent("\(S1)/layers/1824-16x9.heic"))
    },
    RuleCase("PT0308", "\(S1)/scene.json", at: "\"gordon-1648\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"sources\": [\n        \"gordon-1647\"", with: "\"sources\": [\n        \"gordon-1648\"")
    },
    RuleCase("PT0312", "\(S1)/scene.json", at: "\"layers/1824-9x16.heic\"") {
        try $0.write("\(S1)/layers/1824-9x16.heic", String(decoding: Placeholder.plate(for: "layers/1824-9x16.heic"), as: UTF8.self))
    },
    RuleCase("PT0311", "\(S1)/scene.json", at: "\"layers/1824-16x9.heic\"") {
        try MediaFiles.forgeDeclaredSize(width: 1920, height: 1088, at: $0.root.appendingPathComponent("\(S1)/layers/1824-16x9.heic"))
    },
    RuleCase("PT0309", "\(S1)/scene.json", at: "\"layers/1880-wide.heic\"") {
        try FileManager.default.moveItem(at: $0.root.appendingPathComponent("\(S1)/layers/1880-16x9.heic"), to: $0.root.appendingPathComponent("\(S1)/layers/1880-wide.heic"))
        try $0.edit("\(S1)/scene.json", replacing: "\"layers/1880-16x9.heic\"", with: "\"layers/1880-wide.heic\"")
    },
    RuleCase("PT0310", "\(S1)/scene.json", at: "\"layers/1880-16x9.heic\"", after: "\"16x9\": \"layers/1880-16x9.heic\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"9x16\": \"layers/1880-9x16.heic\"", with: "\"9x16\": \"layers/1880-16x9.heic\"")
    },
    // Provenance
    RuleCase("PT0401", "\(S1)/scene.json", at: "\"CC-BY-9.9\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\"", with: "\"rights\": \"CC-BY-9.9\"")
    },
    RuleCase("PT0402", "\(S2)/scene.json", at: "\"http://rightsstatements.org/vocab/InC-EDU/1.0/\"") {
        try $0.edit("\(S2)/scene.json", replacing: "\"use\": \"reference\"", with: "\"use\": \"embedded\"")
    },
    RuleCase("PT0403", "\(S1)/scene.json", at: "\"CC-PDDC\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"rights\": \"https://creativecommons.org/licenses/by/4.0/\"", with: "\"rights\": \"CC-PDDC\"")
    },
    RuleCase("PT0404", "\(S1)/scene.json", at: "\"grant-1880\",\n        \"title\"") {
        try $0.edit("\(S1)/scene.json", replacing: "\"os-1849\",\n        \"grant-1880\"\n      ]", with: "\"os-1849\"\n      ]")
    },
    RuleCase("PT0405", "\(S1)/scene.json", at: "\"kirkwood-1817\",\n        \"title\": \"Plan of the City of Edinburgh (Town") {
        try $0.edit("\(S1)/scene.json", replacing: "\"id\": \"wood-1828\"", with: "\"id\": \"kirkwood-1817\"")
    },
    RuleCase("PT0406", "\(S2)/scene.json", at: "\"http://www.rct.uk/collection\"") {
        try $0.edit("\(S2)/scene.json", replacing: "\"https://www.rct.uk/collection\"", with: "\"http://www.rct.uk/collection\"")
    },
    // Sign-off
    RuleCase("PT0501", S6, at: nil) { try $0.remove("\(S6)/signoff.json") },
    RuleCase("PT0502", "\(S3)/signoff.json", at: "{") { try $0.write("\(S3)/story.vtt", vtt(["00:00.500 --> 00:03.000"])) },
    RuleCase("PT0503", "\(S5)/signoff.json", at: "{") {
        let text = try String(contentsOf: $0.root.appendingPathComponent("\(S5)/signoff.json"), encoding: .utf8)
        let sig = text.range(of: "\"sig\" : \"")!
        let first = text[sig.upperBound]
        try $0.edit("\(S5)/signoff.json", replacing: String(text[sig.lowerBound...sig.upperBound]), with: "\"sig\" : \"" + (first == "A" ? "B" : "A"))
    },
    RuleCase("PT0504", "\(S5)/signoff.json", at: "{") {
        let text = try String(contentsOf: $0.root.appendingPathComponent("\(S5)/signoff.json"), encoding: .utf8)
        let start = text.range(of: "\"payload\" : \"")!.upperBound
        let end = text[start...].firstIndex(of: "\"")!
        try $0.edit("\(S5)/signoff.json", replacing: String(text[start..<end]), with: "e30=")
    },
    RuleCase("PT0505", "\(S5)/signoff.json", at: "{") {
        try $0.remove("\(S5)/signoff.json")
        try FileManager.default.copyItem(at: $0.root.appendingPathComponent("\(S4)/signoff.json"), to: $0.root.appendingPathComponent("\(S5)/signoff.json"))
    },
    // Conjecture masks
    RuleCase("PT0601", "\(S1)/uncertainty.json", at: "[[0.1,0.1],[0.5") { try $0.write("\(S1)/uncertainty.json", mask(polygon: "[[0.1,0.1],[0.5,0.1],[0.5,0.5],[0.1,0.5]]")) },
    RuleCase("PT0602", "\(S1)/uncertainty.json", at: "[[0.1,0.1],[0.5") { try $0.write("\(S1)/uncertainty.json", mask(polygon: "[[0.1,0.1],[0.5,0.5],[0.1,0.1],[0.1,0.1]]")) },
    RuleCase("PT0603", "\(S1)/uncertainty.json", at: "[0.1,0.1],[0.5,0.5]") {
        try $0.write("\(S1)/uncertainty.json", mask(polygon: "[[0.1,0.1],[0.5,0.5],[0.5,0.1],[0.1,0.5],[0.1,0.1]]"))
    },
    RuleCase("PT0604", "\(S1)/uncertainty.json", at: "[[0.1,0.1],[0.1001") {
        try $0.write("\(S1)/uncertainty.json", mask(polygon: "[[0.1,0.1],[0.1001,0.1],[0.1001,0.1001],[0.1,0.1]]"))
    },
    RuleCase("PT0605", "\(S1)/uncertainty.json", at: "\"   \"") { try $0.write("\(S1)/uncertainty.json", mask(note: "   ")) },
    RuleCase("PT0606", "\(S1)/uncertainty.json", at: "\"nobody-1900\"") { try $0.write("\(S1)/uncertainty.json", mask(sources: "[\"nobody-1900\"]")) },
    RuleCase("PT0607", "\(S1)/uncertainty.json", at: "1700") { try $0.write("\(S1)/uncertainty.json", mask(year: "1700")) },
    RuleCase("PT0608", "\(S1)/uncertainty.json", at: "\"r\"", after: "\"note\": \"one\"") {
        try $0.write("\(S1)/uncertainty.json", """
            {"eras": [{"year": 1647, "regions": [
              {"id": "r", "level": "conjecture", "polygon": [[0.1,0.1],[0.2,0.1],[0.2,0.2],[0.1,0.1]], "note": "one", "sources": ["gordon-1647"]},
              {"id": "r", "level": "inferred", "polygon": [[0.5,0.5],[0.6,0.5],[0.6,0.6],[0.5,0.5]], "note": "two", "sources": ["gordon-1647"]}]}]}
            """)
    },
    RuleCase("PT0609", "\(S1)/uncertainty.json", at: "{\"year\"") { try $0.write("\(S1)/uncertainty.json", mask(polygon: "[[0,0],[1,0],[1,0.9],[0,0.9],[0,0]]")) },
    RuleCase("PT0610", "\(S1)/uncertainty.json", at: "1647", after: "}, {") {
        try $0.write("\(S1)/uncertainty.json", "{\"eras\": [{\"year\": 1647, \"regions\": []}, {\"year\": 1647, \"regions\": []}]}\n")
    },
    // Story
    RuleCase("PT0701", "\(S1)/scene.json", at: "\"story.m4a\"") { try $0.write("\(S1)/story.m4a", "RIFF....WAVEfmt not an mp4") },
    RuleCase("PT0702", "\(S1)/scene.json", at: "\"story.m4a\"") {
        try $0.patchBytes("\(S1)/story.m4a", find: Array("mp4a".utf8)) { bytes, i in bytes.replaceSubrange(i..<i + 4, with: Array("alac".utf8)) }
    },
    RuleCase("PT0703", "\(S1)/scene.json", at: "\"story.m4a\"") {
        // Zero the edit list's segment duration: the container then states a zero-length presentation.
        try $0.patchBytes("\(S1)/story.m4a", find: Array("elst".utf8)) { bytes, i in bytes.replaceSubrange(i + 12..<i + 16, with: [0, 0, 0, 0]) }
    },
    RuleCase("PT0704", "\(S1)/story.vtt", at: "not") { try $0.write("\(S1)/story.vtt", "not a transcript\n") },
    RuleCase("PT0705", "\(S1)/story.vtt", at: "x.000") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:0x.000"])) },
    RuleCase("PT0706", "\(S1)/story.vtt", at: "align:middle") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:02.000 align:middle"])) },
    RuleCase("PT0707", "\(S1)/story.vtt", at: "00:00.500 -->") { try $0.write("\(S1)/story.vtt", vtt(["00:02.000 --> 00:03.000", "00:00.500 --> 00:01.800"])) },
    RuleCase("PT0708", "\(S1)/story.vtt", at: "00:01.000 -->") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:02.000", "00:01.000 --> 00:03.000"])) },
    RuleCase("PT0709", "\(S1)/story.vtt", at: "01:59.000") { try $0.write("\(S1)/story.vtt", vtt(["01:59.000 --> 01:59.900"])) },
    RuleCase("PT0710", "\(S1)/story.vtt", at: "00:10.000") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:02.000", "00:10.000 --> 00:12.000"])) },
    RuleCase("PT0711", "\(S1)/story.vtt", at: "00:00.000") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:20.000"])) },
    RuleCase("PT0712", "\(S1)/story.vtt", at: "00:00.000") {
        try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:01.000"], text: "Far too many words for a single second of narration."))
    },
    RuleCase("PT0713", "\(S1)/story.vtt", at: "WEBVTT") { try $0.write("\(S1)/story.vtt", vtt(["00:00.000 --> 00:02.000"])) },
    RuleCase("PT0714", "\(S1)/chapters.vtt", at: "00:00.500") {
        try $0.edit("\(S1)/scene.json", replacing: "\"transcript\": \"story.vtt\",", with: "\"transcript\": \"story.vtt\",\n    \"chapters\": \"chapters.vtt\",")
        try $0.write("\(S1)/chapters.vtt", vtt(["00:00.000 --> 00:30.000", "00:00.500 --> 00:40.000"], text: "Chapter"))
    },
    RuleCase("PT0715", "\(S1)/scene.json", at: "\"fr-FR\"") { try $0.edit("\(S1)/scene.json", replacing: "\"language\": \"en-GB\"", with: "\"language\": \"fr-FR\"") },
    // The story against the voice (S1's story is 96 s of speech with 0.45 s pauses between its sentences).
    RuleCase("PT0716", "\(S1)/story.vtt", at: "00:00:01.500 -->") { try retime($0, "\(S1)/story.vtt") { min($0 + 1, 96) } },
    RuleCase("PT0717", "\(S1)/story.vtt", at: "00:00:00.525 -->") { try retime($0, "\(S1)/story.vtt") { min($0 * 1.05, 96) } },
    RuleCase("PT0718", "\(S1)/story.vtt", at: "00:00:06.124 -->", after: "s02\n") {
        try $0.edit("\(S1)/story.vtt", replacing: "00:00:06.574 --> 00:00:11.374", with: "00:00:06.124 --> 00:00:11.374")
    },
    RuleCase("PT0719", "\(S1)/story.vtt", at: "00:00:00.000") { try $0.edit("\(S1)/story.vtt", replacing: "s01\n", with: "s00\n00:00:00.000 --> 00:00:00.500\nListen.\n\ns01\n") },
    RuleCase("PT0720", "\(S1)/story.vtt", at: "00:00:11.824 -->") {
        try $0.edit("\(S1)/story.vtt", replacing: "s02\n00:00:06.574 --> 00:00:11.374\n", with: "NOTE the second sentence left out\n")
    },
    RuleCase("PT0721", "\(S1)/story.vtt", at: "WEBVTT") {
        try $0.remove("\(S1)/story.m4a")
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=22050", "-t", "96", "-c:a", "aac",
                                       $0.root.appendingPathComponent("\(S1)/story.m4a").path])
    },
    RuleCase("PT0723", "\(S1)/story.vtt", at: "WEBVTT") {
        try $0.remove("\(S1)/story.m4a")
        try runTool("/usr/bin/ffmpeg", ["-loglevel", "error", "-i", $0.root.appendingPathComponent("\(S3)/story.m4a").path, "-t", "96.084", "-c", "copy",
                                       $0.root.appendingPathComponent("\(S1)/story.m4a").path])
    },
    RuleCase("PT0722", "\(S1)/scene.json", at: "\"story.m4a\"") {
        // The boxes stay readable; the sound inside the media data is garbled.
        try $0.patchBytes("\(S1)/story.m4a", find: Array("mdat".utf8)) { bytes, i in
            let size = bytes[i - 4..<i].reduce(0) { $0 << 8 | Int($1) }
            for k in stride(from: i + 68, to: i - 4 + size, by: 3) { bytes[k] = UInt8(truncatingIfNeeded: k &* 31) }
        }
    },
    // Pack
    RuleCase("PT0801", "pack.json", at: "[\n    \"01-castle-esplanade\"") {
        try FileManager.default.copyItem(at: $0.root.appendingPathComponent(S7), to: $0.root.appendingPathComponent("stops/08-extra"))
    },
    RuleCase("PT0802", "pack.json", at: "\"08-nowhere\"") { try $0.edit("pack.json", replacing: "\"07-abbey-strand\"\n", with: "\"08-nowhere\"\n") },
    RuleCase("PT0803", "\(S4)/scene.json", at: "\"04-tron-church\"") { try $0.edit("\(S4)/scene.json", replacing: "\"id\": \"04-tron-kirk\"", with: "\"id\": \"04-tron-church\"") },
    RuleCase("PT0804", "pack.json", at: "\"00-gift-shop\"") {
        try $0.edit("pack.json", replacing: "\"freeStops\": [\n      \"01-castle-esplanade\"", with: "\"freeStops\": [\n      \"00-gift-shop\"")
    },
    RuleCase("PT0805", "pack.json", at: "[]") { try $0.edit("pack.json", replacing: "\"freeStops\": [\n      \"01-castle-esplanade\"\n    ]", with: "\"freeStops\": []") },
    RuleCase("PT0806", "pack.json", at: "\"uk.example.walks.royalmile.citypack\"", after: "tripPass") {
        try $0.edit("pack.json", replacing: "\"uk.example.walks.trippass72\"", with: "\"uk.example.walks.royalmile.citypack\"")
    },
    RuleCase("PT0807", "pack.json", at: "48") { try $0.edit("pack.json", replacing: "\"hours\": 72", with: "\"hours\": 48") },
    RuleCase("PT0808", "pack.json", at: "1000") { try $0.edit("pack.json", replacing: "\"sizeBudget\": 250000000", with: "\"sizeBudget\": 1000") },
    RuleCase("PT0809", "pack.json", at: "\"0000000000000000000000000000000000000000000000000000000000000000\"") {
        let text = try String(contentsOf: $0.root.appendingPathComponent("pack.json"), encoding: .utf8)
        let start = text.range(of: "\"publicKey\": \"")!.upperBound
        try $0.edit("pack.json", replacing: String(text[start..<text.index(start, offsetBy: 64)]), with: String(repeating: "0", count: 64))
    },
    RuleCase("PT0810", "pack.json", at: "{\n      \"id\": \"example-historian\"") {
        try $0.edit("pack.json", replacing: "\"reviewers\": [\n    {", with: "\"reviewers\": [\n    {\"id\": \"example-historian\", \"name\": \"Twin\", \"role\": \"editor\", \"publicKey\": \"\(String(repeating: "ab", count: 32))\"},\n    {")
    },
    RuleCase("PT0812", "pack.json", at: "\"c711b917dd402d373e2f8af854eb917356ffce28a0a148f039955c2c01193361\"") { _ in },  // the example pack as it is
    RuleCase("PT0811", "pack.json", at: "[\n    {\n      \"id\": \"example-historian\"") { try $0.edit("pack.json", replacing: "\"role\": \"historian\"", with: "\"role\": \"editor\"") },
]

import PackMedia
import XCTest

final class WebVTTParserTests: XCTestCase {
    private func parse(_ text: String) -> WebVTTFile { WebVTTParser().parse(text) }

    func testCuesWithIdentifiersBothTimestampFormsAndDefaults() throws {
        let file = parse("WEBVTT - a story\n\nintro\n00:01.000 --> 00:04.500\nHello\nthere\n\n01:00:02.250 --> 01:00:03.000\nLater\n")
        XCTAssertTrue(file.isWebVTT)
        XCTAssertEqual(file.header, "- a story")
        XCTAssertEqual(file.issues, [])
        XCTAssertEqual(file.cues.count, 2)
        let c = file.cues[0]
        XCTAssertEqual(c.id, "intro")
        XCTAssertEqual(c.startTime, 1)
        XCTAssertEqual(c.endTime, 4.5)
        XCTAssertEqual(c.text, "Hello\nthere")
        XCTAssertEqual(c.timingLine, 4)
        XCTAssertEqual(c.line1, 3)
        XCTAssertEqual(c.vertical, "")
        XCTAssertTrue(c.snapToLines)
        XCTAssertEqual(c.line, .auto)
        XCTAssertEqual(c.lineAlign, "start")
        XCTAssertEqual(c.position, .auto)
        XCTAssertEqual(c.positionAlign, "auto")
        XCTAssertEqual(c.size, 100)
        XCTAssertEqual(c.align, "center")
        XCTAssertEqual(file.cues[1].startTime, 3602.25)
        XCTAssertEqual(file.cues[1].id, "")
    }

    func testCueSettingsFollowTheSpecRules() throws {
        let file = parse("""
            WEBVTT

            REGION
            id:fred width:40% lines:3 regionanchor:0%,100% viewportanchor:10%,90% scroll:up

            00:00.000 --> 00:01.000 vertical:rl line:-2,end position:10%,line-left size:35% align:left region:fred
            a

            00:01.000 --> 00:02.000 line:50% position:110% align:middle size:x vertical:up bogus
            b
            """)
        XCTAssertEqual(file.regions.count, 1)
        XCTAssertEqual(file.regions[0].id, "fred")
        XCTAssertEqual(file.regions[0].width, 40)
        XCTAssertEqual(file.regions[0].viewportAnchorX, 10)
        XCTAssertEqual(file.regions[0].scroll, "up")
        let a = file.cues[0]
        XCTAssertEqual(a.vertical, "rl")
        XCTAssertEqual(a.line, .number(-2))
        XCTAssertTrue(a.snapToLines)
        XCTAssertEqual(a.lineAlign, "end")
        XCTAssertEqual(a.position, .number(10))
        XCTAssertEqual(a.positionAlign, "line-left")
        XCTAssertEqual(a.size, 35)
        XCTAssertEqual(a.align, "left")
        XCTAssertEqual(a.region?.id, "fred")
        let b = file.cues[1]
        XCTAssertEqual(b.line, .number(50))
        XCTAssertFalse(b.snapToLines)
        XCTAssertEqual(b.position, .auto, "110% is out of range and ignored")
        XCTAssertEqual(b.align, "center")
        XCTAssertEqual(b.size, 100)
        XCTAssertEqual(b.vertical, "")
        let ignored = file.issues.filter { $0.line == 9 }
        XCTAssertEqual(ignored.count, 5, "\(file.issues)")
        XCTAssertTrue(ignored.allSatisfy { $0.severity == .warning })
        XCTAssertEqual(ignored.first?.column, 34, "column of position:110%")
    }

    func testMissingSignatureIsNotWebVTT() {
        for text in ["WEBVT\n", "webvtt\n", "WEBVTTX\n", "", "\u{1}\u{2}garbage"] {
            let f = parse(text)
            XCTAssertFalse(f.isWebVTT, text)
            XCTAssertEqual(f.issues.first?.line, 1)
        }
        XCTAssertTrue(parse("WEBVTT\tx").isWebVTT)
        XCTAssertTrue(parse("\u{FEFF}WEBVTT").isWebVTT == false, "a BOM in a String is only stripped by the byte decoder")
        XCTAssertTrue(WebVTTParser().parse([0xEF, 0xBB, 0xBF] + Array("WEBVTT\n".utf8)).isWebVTT)
    }

    func testMalformedTimestampsDropTheCueAndSayWhere() {
        let f = parse("WEBVTT\n\n00:01.00 --> 00:02.000\nshort millis\n\n00:01.000 -> 00:02.000\nbad arrow\n\n00:61.000 --> 01:02.000\nbad seconds\n\n00:03.000 --> 00:04.000\nok\n")
        XCTAssertEqual(f.cues.map(\.text), ["ok"])
        XCTAssertEqual(f.issues.filter { $0.severity == .error }.map(\.line), [3, 9])
        XCTAssertEqual(f.issues.first?.column, 9)
    }

    func testAnSRTStyleCommaIsNamedAsSuch() {
        let f = parse("WEBVTT\n\n00:00:01,500 --> 00:00:02.000\nconverted from SRT\n\n00:00:03.000 --> 00:00:04,250\nend too\n")
        XCTAssertEqual(f.cues.count, 0)
        let errors = f.issues.filter { $0.severity == .error }
        XCTAssertEqual(errors.map(\.line), [3, 6])
        XCTAssertEqual(errors.map(\.column), [9, 26], "each points at its comma")
        XCTAssertTrue(errors[0].message.hasPrefix("malformed start timestamp: milliseconds follow a '.', not a ',' as in SRT"), errors[0].message)
        XCTAssertTrue(errors[1].message.hasPrefix("malformed end timestamp: milliseconds follow a '.'"), errors[1].message)
    }

    func testTimestampSlipsSayWhatIsWrong() {
        let f = parse("WEBVTT\n\n00:00:00:500 --> 00:00:02.000\ncolon\n\n00:03 --> 00:04.000\nno millis\n\n00:05.000 --> 00:75.000\nsecond past 59\n\n00:05.0 --> 00:06.000\nshort\n")
        let errors = f.issues.filter { $0.severity == .error }.map(\.message)
        XCTAssertEqual(errors.count, 4, "\(errors)")
        XCTAssertTrue(errors[0].hasPrefix("malformed start timestamp: milliseconds follow a '.', not a ':'"), errors[0])
        XCTAssertTrue(errors[1].hasPrefix("malformed start timestamp: the milliseconds are missing (write .000 after the seconds)"), errors[1])
        XCTAssertTrue(errors[2].hasPrefix("malformed end timestamp: minutes and seconds run from 00 to 59"), errors[2])
        XCTAssertTrue(errors[3].hasPrefix("malformed start timestamp (expected [hh:]mm:ss.ttt)"), errors[3])
    }

    func testNotesStylesAndOrderRules() {
        let f = parse("WEBVTT\n\nNOTE a comment\nspanning lines\n\nSTYLE\n::cue { color: red }\n\n00:00.000 --> 00:01.000\na\n\nSTYLE\n::cue { color: blue }\n\n00:02.000 --> 00:01.000\nbackwards\n")
        XCTAssertEqual(f.styles, ["::cue { color: red }"])
        XCTAssertEqual(f.cues.count, 2)
        XCTAssertTrue(f.issues.contains { $0.line == 12 && $0.message.contains("STYLE") })
        XCTAssertTrue(f.issues.contains { $0.line == 15 && $0.message.contains("ends at or before") })
    }

    func testLineEndingsOfEveryKindAndAMissingBlankLine() {
        let f = parse("WEBVTT\r\n\r\n00:00.000 --> 00:01.000\r\na\r00:01.000 --> 00:02.000\nb")
        XCTAssertEqual(f.cues.map(\.text), ["a", "b"])
        XCTAssertEqual(f.cues[1].timingLine, 5)
    }

    func testJunkBytesNeverCrash() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let bytes = Array("WEBVTT\n\n".utf8) + (0..<500).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = WebVTTParser().parse(bytes)
        }
        let invalid = WebVTTParser().parse(Array("WEBVTT\n\n00:00.000 --> 00:01.000\n".utf8) + [0xFF, 0xFE])
        XCTAssertTrue(invalid.issues.contains { $0.message.contains("UTF-8") })
    }

    /// Every numeric setting whose number overflows a double is dropped, as browsers drop it, so no infinity
    /// reaches a cue or region: `line:` stays auto, the region keeps its default lines.
    func testNumbersPastTheLargestDoubleDropTheirSetting() {
        let huge = "1" + String(repeating: "0", count: 400)
        let f = parse("WEBVTT\n\nREGION\nid:r\nlines:\(huge)\nwidth:\(huge)%\nregionanchor:\(huge)%,1%\n\n"
                      + "00:00.000 --> 00:01.000 line:\(huge)\na\n\n00:01.000 --> 00:02.000 line:-\(huge),end\nb\n\n"
                      + "00:02.000 --> 00:03.000 line:\(huge)% position:\(huge)% size:\(huge)%\nc\n\n00:03.000 --> 00:04.000 line:1e999%\nd\n")
        XCTAssertEqual(f.cues.count, 4)
        for cue in f.cues {
            XCTAssertEqual(cue.line, .auto)
            XCTAssertTrue(cue.snapToLines)
            XCTAssertEqual(cue.position, .auto)
            XCTAssertEqual(cue.size, 100)
        }
        XCTAssertEqual(f.cues[1].lineAlign, "start", "the whole setting is dropped, its alignment too")
        XCTAssertEqual(f.regions.first?.lines, 3)
        XCTAssertEqual(f.regions.first?.width, 100)
        XCTAssertEqual(f.regions.first?.regionAnchorX, 0)
        XCTAssertTrue(f.issues.contains { $0.message.contains("too large") && $0.line == 9 }, "\(f.issues)")
        XCTAssertFalse(f.issues.contains { $0.severity == .error }, "\(f.issues)")
    }
}

/// Inputs the fuzzer found crashing, kept as regressions.
final class WebVTTFuzzRegressionTests: XCTestCase {
    func testAHugeHoursTimestampNeitherTrapsNorOverflowsMessages() {
        let f = WebVTTParser().parse("WEBVTT\n\n99999999999999:00:00.500 --> 00:00:04.306\ntext\n")
        XCTAssertEqual(f.cues.count, 1)
        XCTAssertTrue(f.issues.contains { $0.message.contains("ends at or before") })
        XCTAssertFalse(WebVTTParser.format(.infinity).isEmpty)
        XCTAssertEqual(WebVTTParser.format(3602.25), "01:00:02.250")
    }
}

import PackFiles
import PackModel
import PackTrust
import XCTest

/// Archive paths that would be the same file on the phone, or that show as something they are not, are refused.
final class PathSafetyTests: XCTestCase {
    private func refusal(_ paths: [String]) -> String? {
        var safety = PathSafety()
        do { for p in paths { try safety.admit(p) } } catch let f as VerificationFailure { return f.code } catch { return "\(error)" }
        return nil
    }

    func testOrdinaryPathsAreAdmitted() {
        XCTAssertNil(refusal(["pack.json", "stops/01-a/layers/1824-16x9.heic", "stops/01-a/story.vtt"]))
    }

    func testCaseAndNormalisationTwinsCollide() {
        XCTAssertEqual(refusal(["stops/01-a/Logo.heic", "stops/01-a/logo.heic"]), "path-collision")
        XCTAssertEqual(refusal(["stops/01-a/caf\u{E9}.vtt", "stops/01-a/cafe\u{301}.vtt"]), "path-collision")
    }

    /// Twins under full case folding or compatibility mapping (NFKC_Casefold) that plain lower-casing misses: the
    /// characters that make them are refused on their own, so neither half of a twin gets in.
    func testCharactersThatFoldIntoOtherLettersAreRefused() {
        for name in ["stops/01-a/\u{FB01}le.vtt", "stops/01-a/stra\u{DF}e.vtt", "stops/01-a/\u{FF46}ile.vtt", "stops/01-a/\u{3C2}.vtt"] {
            XCTAssertEqual(refusal([name]), "path", name.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
        XCTAssertNil(refusal(["stops/01-a/file.vtt", "stops/01-a/STRASSE.vtt"]))
        // The Kelvin sign is canonically K: it folds with plain lower-casing, so it is caught as a twin.
        XCTAssertEqual(refusal(["stops/01-a/kelvin.vtt", "stops/01-a/\u{212A}elvin.vtt"]), "path-collision")
    }

    func testInvisibleAndBidirectionalCharactersAreRefused() {
        for scalar in [0x200B, 0x200C, 0x200D, 0x200E, 0x200F, 0x202A, 0x202E, 0x2066, 0x2069, 0xFEFF, 0x00AD, 0x2060, 0x0085, 0x001B] {
            let name = "stops/01-a/story\(Character(Unicode.Scalar(UInt32(scalar))!)).vtt"
            XCTAssertEqual(refusal([name]), "path", String(scalar, radix: 16))
        }
    }

    /// A mark that joins a `/` into one Character with its neighbour (a combining mark or emoji modifier after it, a
    /// prepended mark before it): Character-wise code no longer sees the separator (outside attack: an install wrote
    /// `stops/07/\u{301}x.txt` as one name, and `..` hidden behind it passed a check of components).
    func testMarksJoiningASlashIntoOneCharacterAreRefused() {
        for name in ["stops/01-a/\u{301}x.txt", "stops/01-a/\u{903}x.txt", "stops/01-a/\u{1F3FB}x.txt", "stops/01-a/\u{20DD}x.txt",
                     "stops/01-a\u{600}/x.txt"] {
            XCTAssertEqual(refusal([name]), "path", name.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " "))
        }
        // A `..` behind such a mark is seen for what it is (a Character split saw one component, `../\u{301}x.txt`).
        XCTAssertEqual(refusal(["../\u{301}x.txt"]), "path-traversal")
        // A mark inside a name, away from any slash, is an ordinary letter with an accent.
        XCTAssertNil(refusal(["stops/01-a/cafe\u{301}.vtt"]))
    }

    /// PackFiles' one way to split a path: at `/` bytes, as the kernel does, whatever Characters they are part of.
    func testPathsSplitAtSlashBytesNotCharacters() {
        XCTAssertEqual("a/\u{301}b".split(separator: "/").count, 1, "the Character split this guards against")
        XCTAssertEqual(PathParts.split("a/\u{301}b"), ["a", "\u{301}b"])
        XCTAssertEqual(PathParts.split("../\u{301}x"), ["..", "\u{301}x"])
        XCTAssertEqual(PathParts.split("/a//b/"), ["", "a", "", "b", ""])
        XCTAssertEqual(PathParts.split("/a//b/", omittingEmpty: true), ["a", "b"])
        XCTAssertEqual(PathParts.last("packs/x/1-2.tar"), "1-2.tar")
    }
}

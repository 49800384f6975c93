import Foundation
@testable import PackLint
import XCTest

/// Every pattern in packtool's schemas takes the C library's path, and on it answers as Swift's `Regex` (ECMA-262
/// syntax for these) does, for names, ids, hashes, URLs and the strings that nearly are them; syntax where POSIX and
/// ECMA-262 part goes to `Regex`.
final class SchemaPatternTests: XCTestCase {
    private var schemaPatterns: [String] {
        var found = Set<String>()
        for text in EmbeddedSchemas.files.values {
            guard let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else { continue }
            collect(json, into: &found)
        }
        return found.sorted()
    }

    private func collect(_ value: Any, into found: inout Set<String>) {
        if let object = value as? [String: Any] {
            if let pattern = object["pattern"] as? String { found.insert(pattern) }
            for child in object.values { collect(child, into: &found) }
        } else if let array = value as? [Any] {
            for child in array { collect(child, into: &found) }
        }
    }

    private let samples = [
        "", "a", "03-mercat-cross", "3-mercat", "03-Mercat", "03--mercat", "royal-mile", "-royal", "en", "en-GB", "e",
        "ENG-latn-x1", String(repeating: "ab", count: 40), String(repeating: "0", count: 64), String(repeating: "f", count: 64),
        String(repeating: "F", count: 64), "sha256:" + String(repeating: "a", count: 64), "sha256:" + String(repeating: "a", count: 63),
        "layers/1824-16x9.heic", "layers/../x.heic", "story.m4a", "story.m4a.bak", "story.vtt", "a b.vtt", "https://x.org",
        "http://x.org", "ftp://x", "https://creativecommons.org/licenses/by-sa/4.0/", "https://creativecommons.org/publicdomain/zero/1.0/",
        "https://creativecommons.org/licenses/by/4.0", "http://rightsstatements.org/vocab/NoC-US/1.0/", "CC-BY-4.0",
        "LicenseRef-archive", "LicenseRef-", "2026-12-06T08:00:00Z", "2026-12-06 08:00:00Z", "aGVsbG8=", "aGVsbG8===", "a+b/c_d-",
        "tab\there", "line\nbreak", "é", "03-mercat-crosś",
    ]

    func testEverySchemaPatternTakesTheFastPathAndAgreesWithRegex() throws {
        let patterns = schemaPatterns
        XCTAssertGreaterThan(patterns.count, 10, "the schemas' patterns were found")
        for pattern in patterns {
            XCTAssertTrue(SchemaPattern.isPOSIXExtended(pattern), pattern)
            let compiled = SchemaPattern(pattern)
            let regex = try Regex(pattern)
            for sample in samples {
                XCTAssertEqual(compiled.matches(sample), (try regex.firstMatch(in: sample)) != nil, "\(pattern) on \(sample.debugDescription)")
            }
        }
    }

    func testSyntaxWherePOSIXAndECMAPartGoesToRegex() throws {
        for pattern in [#"^\d+$"#, #"\bword"#, "(?i)abc", "a+?", "a{2,3}?", #"[\-a]"#, "[[:alpha:]]", "[]a]", "[^]a]", "é+", #"\u0041"#, #"(a)\1"#,
                        // the review's: glibc's word and buffer anchors, a brace that is no counted repeat, stacked repeats
                        #"O\'Brien"#, #"^\<a"#, #"^\`a"#, #"^\>"#, "^a{,2}$", "^a{$", "a}", "^a?+a$", "^a*+a$", "^a{2}{3}$", "^a+*$"] {
            XCTAssertFalse(SchemaPattern.isPOSIXExtended(pattern), pattern)
        }
        for pattern in ["^a{2}$", "^a{2,}$", "^a{2,3}$", #"^\.\/\-\{\}$"#, "^(ab|cd)*x$", "^$"] {
            XCTAssertTrue(SchemaPattern.isPOSIXExtended(pattern), pattern)
        }
        XCTAssertFalse(SchemaPattern("^.+$").matches("a\nb"), "POSIX's . matches a line break; ECMA-262's does not")
        XCTAssertFalse(SchemaPattern("^a.b$").matches("a\rb"))
        XCTAssertTrue(SchemaPattern(#"O\'Brien"#).matches("O'Brien"))
        XCTAssertEqual(SchemaPattern("^a{,2}$").matches(""), try Regex("^a{,2}$").firstMatch(in: "") != nil, "{,2} is Regex's to read")
        XCTAssertTrue(SchemaPattern(#"^\d{3}$"#).matches("123"), "Regex reads \\d as a digit")
        XCTAssertFalse(SchemaPattern(#"^\d{3}$"#).matches("12a"))
    }

    func testAStringWithANulOrNonASCIIIsJudgedByRegex() {
        let pattern = SchemaPattern("^[a-z]+$")
        XCTAssertFalse(pattern.matches("abc\u{0}xyz!"), "a C string would stop at the NUL and match")
        XCTAssertFalse(pattern.matches("abcé"))
        XCTAssertTrue(pattern.matches("abc"))
    }
}

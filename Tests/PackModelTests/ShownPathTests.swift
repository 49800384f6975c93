@testable import PackAuthoring
import XCTest

/// The one rule for paths in packtool's output: relative inside the working folder, `.` for the folder itself,
/// absolute outside it and everywhere when the working folder is `/`.
final class ShownPathTests: XCTestCase {
    func testAPathInsideTheWorkingFolderIsShownRelativeToItWithoutADotSlash() {
        let here = ["/home/ann/walks"]
        XCTAssertEqual(ShownPath.of("/home/ann/walks/scenes/royal-mile/scene.json", workingFolders: here), "scenes/royal-mile/scene.json")
        XCTAssertEqual(ShownPath.of("./scenes/royal-mile/", workingFolders: here), "scenes/royal-mile")
        XCTAssertEqual(ShownPath.of("scenes//royal-mile/./stops/../pack.json", workingFolders: here), "scenes/royal-mile/pack.json")
    }

    func testTheWorkingFolderItselfIsADot() {
        XCTAssertEqual(ShownPath.of("/home/ann/walks/", workingFolders: ["/home/ann/walks"]), ".")
        XCTAssertEqual(ShownPath.of(".", workingFolders: ["/home/ann/walks"]), ".")
        XCTAssertEqual(ShownPath.of("cdn/..", workingFolders: ["/home/ann/walks"]), ".")
    }

    func testAPathOutsideStaysAbsoluteWithDotsResolved() {
        let here = ["/home/ann/walks"]
        XCTAssertEqual(ShownPath.of("/home/ann/keys/root.pem", workingFolders: here), "/home/ann/keys/root.pem")
        XCTAssertEqual(ShownPath.of("../keys/root.pem", workingFolders: here), "/home/ann/keys/root.pem")
        XCTAssertEqual(ShownPath.of("/home/ann/walkstwo/x", workingFolders: here), "/home/ann/walkstwo/x", "a sibling sharing the prefix is outside")
        XCTAssertEqual(ShownPath.of("/../../etc", workingFolders: here), "/etc")
    }

    func testFromTheRootFolderEveryPathIsAbsolute() {
        XCTAssertEqual(ShownPath.of("/etc/passwd", workingFolders: ["/"]), "/etc/passwd")
        XCTAssertEqual(ShownPath.of("tmp/x", workingFolders: ["/"]), "/tmp/x")
    }

    func testEitherSpellingOfTheWorkingFolderIsRecognised() {
        let here = ["/private/tmp/walks", "/tmp/walks"]
        XCTAssertEqual(ShownPath.of("/tmp/walks/cdn/index.json", workingFolders: here), "cdn/index.json")
        XCTAssertEqual(ShownPath.of("/private/tmp/walks/cdn", workingFolders: here), "cdn")
    }
}

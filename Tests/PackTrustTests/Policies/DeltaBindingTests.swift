import PackModel
import PackTrust
import XCTest

/// The delta's bindings one by one: where it leads (the manifest's scene), where it starts (the installed scene; a
/// version-0 delta starts from nothing), and its entries (each added file once, at its signed size; none left over).
final class DeltaBindingTests: XCTestCase {
    private let story = Manifest.File(path: "story.vtt", size: 10, sha256: String(repeating: "a", count: 64), mediaType: "text/vtt")
    private let plate = Manifest.File(path: "layers/1824-16x9.heic", size: 20, sha256: String(repeating: "b", count: 64), mediaType: "image/heic")
    private var installed: Manifest.Scene { .init(id: "01-castle", version: 1, digest: "sha256:" + String(repeating: "1", count: 64), files: [story, plate]) }
    private var target: Manifest.Scene { .init(id: "01-castle", version: 2, digest: "sha256:" + String(repeating: "2", count: 64), files: [story, plate]) }

    private func delta(from: Int = 1, fromDigest: String? = nil, added: [String] = ["story.vtt"]) -> DeltaBinding {
        DeltaBinding(DeltaDocument(pack: "royal-mile", scene: "01-castle", from: .init(version: from, digest: fromDigest ?? (from == 0 ? "" : installed.digest)),
                                   to: .init(version: 2, digest: target.digest), files: [story, plate], removed: [], added: added))
    }

    private func code(_ result: PolicyResult) -> String? {
        if case .fails(let failure) = result { return failure.code }
        return nil
    }

    func testADeltaLeadsOnlyToTheScenesVersionDigestAndFilesTheManifestNames() {
        XCTAssertNil(code(delta().evaluate(leadsTo: target, pack: "royal-mile")))
        XCTAssertEqual(code(delta().evaluate(leadsTo: target, pack: "another-pack")), "delta-target")
        var other = target
        other.version = 3
        XCTAssertEqual(code(delta().evaluate(leadsTo: other, pack: "royal-mile")), "delta-target")
        other = target
        other.files = [story]
        XCTAssertEqual(code(delta().evaluate(leadsTo: other, pack: "royal-mile")), "delta-target")
    }

    func testADeltaStartsFromTheInstalledSceneOrFromNothing() {
        XCTAssertNil(code(delta().evaluate(startsFrom: installed)))
        XCTAssertEqual(code(delta(fromDigest: "sha256:" + String(repeating: "9", count: 64)).evaluate(startsFrom: installed)), "delta-base")
        XCTAssertEqual(code(delta().evaluate(startsFrom: nil)), "delta-base", "nothing installed")
        XCTAssertNil(code(delta(from: 0, added: ["story.vtt", "layers/1824-16x9.heic"]).evaluate(startsFrom: nil)), "version 0 carries every file")
    }

    func testAVersionZeroDeltaCarriesEveryFileOfItsList() {
        XCTAssertNil(code(delta(from: 0, added: ["story.vtt", "layers/1824-16x9.heic"]).evaluateSelfContained()))
        XCTAssertEqual(code(delta(from: 0, added: ["story.vtt"]).evaluateSelfContained()), "delta-base", "the plate would come from nowhere")
        XCTAssertNil(code(delta(from: 1, added: ["story.vtt"]).evaluateSelfContained()), "a delta from version 1 reuses the installed plate")
    }

    func testEachAddedFileIsOneEntryAtItsSignedSizeAndNoneIsLeftOver() throws {
        let binding = delta()
        var pending = try binding.addedFiles()
        XCTAssertThrowsError(try binding.evaluate(entry: "layers/1824-16x9.heic", size: 20, pending: &pending), "not added") {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "delta-entry")
        }
        XCTAssertThrowsError(try binding.evaluate(entry: "story.vtt", size: 11, pending: &pending), "another size") {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "delta-entry")
        }
        pending = try binding.addedFiles()
        XCTAssertEqual(try binding.evaluate(entry: "story.vtt", size: 10, pending: &pending), story)
        XCTAssertThrowsError(try binding.evaluate(entry: "story.vtt", size: 10, pending: &pending), "the same file twice")
        XCTAssertNil(code(binding.evaluate(remaining: pending)))
        XCTAssertEqual(code(binding.evaluate(remaining: try binding.addedFiles())), "delta-entry", "an added file never came")
    }

    func testAnAddedPathOutsideTheFileListIsRefused() {
        XCTAssertThrowsError(try delta(added: ["story.vtt", "planted.txt"]).addedFiles()) {
            XCTAssertEqual(($0 as? VerificationFailure)?.code, "delta-entry")
        }
    }
}

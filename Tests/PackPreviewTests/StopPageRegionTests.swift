import Foundation
import PackAuthoring
@testable import PackPreview
import PackLint
import PackModel
import TestSupport
import PackAudio
import XCTest

/// The mask regions a stop page hatches on each crop, and the route's legs, from the example pack's own documents.
final class StopPageRegionTests: XCTestCase {
    private func model(_ root: URL = ExamplePack.root) -> PreviewPack {
        let context = LintContext(path: root, currentYear: 2026, listener: StoryVoice.standard())
        return PreviewPack(context: context, diagnostics: Linter(currentYear: 2026, listener: StoryVoice.standard()).run(context).diagnostics)
    }

    func testStopsFollowTheRouteAndEachLegIsTheDistanceFromThePreviousAnchor() throws {
        let pack = model()
        XCTAssertEqual(pack.stops.map(\.folder), ExamplePack.stops.map(\.lastPathComponent))
        XCTAssertNil(pack.stops[0].legFromPrevious)
        for leg in pack.stops.dropFirst().map(\.legFromPrevious) { XCTAssertGreaterThan(try XCTUnwrap(leg), 50) }
        XCTAssertEqual(pack.routeLength, pack.stops.compactMap(\.legFromPrevious).reduce(0, +))
        XCTAssertTrue(pack.stops[0].isFree)
        XCTAssertTrue(pack.stops.allSatisfy { $0.signoff?.isCurrent == true })
    }

    /// Under each transcript the voice as lint hears it (a rect per segment, upper row) over the cues (lower row),
    /// placed along the story's length; a story lint cannot judge gets no timeline.
    func testTheStoryPageDrawsTheVoiceOverTheCues() throws {
        let pack = model()
        let stop = pack.stops[2]
        let story = try XCTUnwrap(stop.story)
        let voice = try XCTUnwrap(story.voice)
        XCTAssertGreaterThan(voice.count, story.cues.count, "a segment per sentence at least")
        let html = try StopPage(pack: pack, index: 2, plates: [:], audioPath: "../media/s/story.m4a", transcriptDataURL: nil).html()
        let figure = try XCTUnwrap(html.range(of: #"<figure class="voice-timeline">.*?</figure>"#, options: .regularExpression).map { String(html[$0]) })
        XCTAssertEqual(figure.components(separatedBy: "<rect class=\"voice\"").count - 1, voice.count)
        XCTAssertEqual(figure.components(separatedBy: "<rect class=\"cue-span\"").count - 1, story.cues.count)
        // The first cue (0.5 s of a 104 s story) starts 4.8 thousandths along, as the first segment does.
        XCTAssertTrue(figure.contains("<rect class=\"cue-span\" x=\"4.8\""), figure.prefix(600).description)
        XCTAssertTrue(figure.contains("<rect class=\"voice\" x=\"5\"") || figure.contains("<rect class=\"voice\" x=\"4.9\""), figure.prefix(300).description)

        var silent = pack
        silent.stops[2].story?.voice = nil
        XCTAssertFalse(try StopPage(pack: silent, index: 2, plates: [:], audioPath: "../media/s/story.m4a", transcriptDataURL: nil).html().contains("voice-timeline\""))
    }

    func testTheLandscapeCropHatchesEveryRegionAndThePortraitCropOnlyThoseOverlappingIt() throws {
        let pack = model()
        var portraitSkipped = 0
        for i in pack.stops.indices {
            let page = StopPage(pack: pack, index: i, plates: [:], audioPath: nil, transcriptDataURL: nil)
            for era in pack.stops[i].eras {
                XCTAssertEqual(page.regions(era.regions, crop: .landscape, width: 1920, height: 1080, titles: [:]).count, era.regions.count)
                let portrait = page.regions(era.regions, crop: .portrait, width: 1080, height: 1920, titles: [:])
                XCTAssertLessThanOrEqual(portrait.count, era.regions.count)
                portraitSkipped += era.regions.count - portrait.count
                for region in portrait {
                    for point in region.points.split(separator: " ") {
                        let xy = point.split(separator: ",").compactMap { Double($0) }
                        XCTAssertTrue((0...1080).contains(xy[0]) && (0...1920).contains(xy[1]), "\(region.id) \(point)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(portraitSkipped, 0, "the example has regions outside the 9:16 crop, so the clip is exercised")
    }

    func testAStopsOwnGeofenceRadiusIsTheOneItsPageShows() throws {
        let copy = try PackCopy()
        try copy.edit("stops/02-gladstones-land/scene.json", replacing: "\"view\": {", with: "\"geofenceRadius\": 18,\n  \"view\": {")
        let pack = model(copy.root)
        XCTAssertEqual(pack.stops[1].geofenceRadius, 18)
        XCTAssertNil(pack.stops[0].geofenceRadius)
        XCTAssertEqual(pack.geofenceRadius, 30)
    }

    func testCueTextLosesItsMarkupAndKeepsItsWords() {
        XCTAssertEqual(CueText.plain("<v Bob>Hello</v> <b>there</b>, <c.loud>friend</c>"), "Hello there, friend")
        XCTAssertEqual(CueText.plain("fish &amp; chips &lt;3 &#x263A; &#9731;&nbsp;!"), "fish & chips <3 \u{263A} \u{2603}\u{A0}!")
        XCTAssertEqual(CueText.plain("at <00:00:05.000>five"), "at five")
        XCTAssertEqual(CueText.plain("a & b &unknown; c"), "a & b &unknown; c")
        XCTAssertEqual(CueText.plain("unclosed <b"), "unclosed ")
    }

    func testAStoryThatIsNotAACGetsNoPlayer() throws {
        let pack = try PackCopy()
        try Data().write(to: pack.stop(0).appendingPathComponent("story.m4a"))
        let stop = model(pack.root).stops[0]
        XCTAssertNil(stop.story?.audio)
        XCTAssertEqual(stop.story?.cues.isEmpty, false, "the transcript is still shown")
    }

    func testOneBrokenSourceLeavesTheOtherSourcesListed() throws {
        let pack = try PackCopy()
        try pack.edit("stops/01-castle-esplanade/scene.json", replacing: "\"id\": \"gordon-1647\",", with: "\"id\": \"gordon-1647\", \"colour\": \"red\",")
        let stop = model(pack.root).stops[0]
        let all = try JSONDecoder().decode(SceneDocument.self, from: Data(contentsOf: ExamplePack.stops[0].appendingPathComponent("scene.json"))).provenance.sources
        XCTAssertEqual(stop.sources.count, all.count - 1)
        XCTAssertEqual(stop.sources.map(\.id), Array(all.map(\.id).dropFirst()))
    }

    func testAPageNameIsTheFolderOnlyWhenItIsPortable() {
        XCTAssertEqual(PreviewPack.pageName("01-castle-esplanade", number: 1), "01-castle-esplanade.html")
        XCTAssertEqual(PreviewPack.pageName("../evil", number: 2), "stop-2.html")
        XCTAssertEqual(PreviewPack.pageName("café", number: 3), "stop-3.html")
        XCTAssertEqual(PreviewPack.pageName(".hidden", number: 4), "stop-4.html")
    }
}

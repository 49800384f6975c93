import Foundation
import PackAudio
import TestSupport
import XCTest

final class StoryVoiceTests: XCTestCase {
    func testExplore() throws {
        for stop in ExamplePack.stops {
            let voice = try StoryVoice(cacheFolder: nil).listen(to: stop.appendingPathComponent("story.m4a").path)
            print(stop.lastPathComponent, voice.verdict, voice.duration, voice.segments.map { String(format: "%.2f-%.2f", $0.start, $0.end) }.joined(separator: " "))
        }
    }
}

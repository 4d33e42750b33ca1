import Foundation
import LookCore
import Media
import ReactionDomain
import Reactions
import TestSupport
import XCTest

final class ReactorTests: XCTestCase {
    func testCountsAndLogLines() {
        let lines = CollectedLines()
        let reactor = Reactor(log: Log(threshold: .notice, journal: true) { lines.add($0) }, timestamp: { _ in "14:03:27" }, clock: MonotonicClock())
        XCTAssertEqual(reactor.perform(.count, condition: "a sign", fire: 1, at: Date()).shown, "×1")
        XCTAssertEqual(reactor.perform(.count, condition: "a sign", fire: 1, at: Date()).shown, "×2")
        XCTAssertEqual(reactor.perform(.count, condition: "a cat", fire: 1, at: Date()).shown, "×1")
        XCTAssertEqual(reactor.count(for: "a sign"), 2)
        for i in 1...4 { _ = reactor.perform(.log, condition: "visitor \(i)", fire: i, at: Date()) }
        XCTAssertEqual(reactor.latestLines, ["14:03:27 visitor 2", "14:03:27 visitor 3", "14:03:27 visitor 4"])
        XCTAssertEqual(reactor.perform(.log, condition: "visitor 5", fire: 5, at: Date()).note, "14:03:27 visitor 5")
        XCTAssertEqual(lines.all, [], "no journal line of its own: the fire's line carries it")
    }

    /// `say: "{description}"`: nothing is spoken at the fire; the line is spoken, filled in, once the
    /// description is in, or with the rule's words when none came.
    func testALineWithTheDescriptionIsSpokenOnceItIsIn() {
        let lines = CollectedLines()
        let reactor = Reactor(log: Log(threshold: .notice, journal: true) { lines.add($0) }, clock: MonotonicClock())
        let fire = FireContext(fire: 4, rule: 1, condition: "a parcel", reaction: "say", frame: 9, time: Date())
        let said = reactor.perform(.say("Look: {description}"), fire: fire)
        XCTAssertEqual(said.note, "spoken after the description")
        XCTAssertFalse(lines.all.contains { $0.contains("say:") }, "nothing spoken at the fire")
        reactor.described(.say("Look: {description}"), fire: fire, text: "A courier leaves a box.", problem: nil)
        XCTAssertEqual(lines.all.filter { $0.contains("say:") }, ["<5>say: Look: A courier leaves a box.\n"])
        reactor.described(.say("{description}"), fire: fire, text: nil, problem: "the model failed")
        XCTAssertEqual(lines.all.filter { $0.contains("say:") }.last, "<5>say: a parcel\n", "the rule's words stand in")
        reactor.described(.say("There is the parcel"), fire: fire, text: "ignored", problem: nil)
        XCTAssertEqual(lines.all.filter { $0.contains("say:") }.count, 2, "a line without the placeholder was spoken at its fire")
    }

    func testWithSoundOffSoundsAreNotPerformedAndSaySo() {
        let result = Reactor(audio: nil, clock: MonotonicClock()).perform(.sound(.chime), condition: "a cat", fire: 1, at: Date())
        XCTAssertFalse(result.performed)
        XCTAssertEqual(result.shown, "chime")
        XCTAssertEqual(result.note, "--no-sound")
        XCTAssertTrue(result.turnedOff, "turned off by the user: not a failure")
        XCTAssertEqual(result.outcome, "turned off (--no-sound)")
    }

    func testPNGWriterWritesWhatFFmpegReadsBack() throws {
        let image = TestMedia.halves(width: 64, height: 32, left: (255, 0, 0), right: (0, 0, 255))
        let path = try Fixtures.scratch().appendingPathComponent("halves.png").path
        try PNGWriter.write(image, to: path)
        let probe = try Subprocess.shell("ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 '\(path)'")
        XCTAssertEqual(probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "png,64,32")
        let raw = try Subprocess.shell("ffmpeg -v error -i '\(path)' -f rawvideo -pix_fmt rgb24 - | od -An -tu1 -N3 -j \(63 * 3)")
        XCTAssertEqual(raw.stdout.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }, [0, 0, 255])
    }
}

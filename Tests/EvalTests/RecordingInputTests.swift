import Foundation
import Rules
import XCTest

@testable import Eval

/// Records are input too: hand-edited numbers and logs of several runs.
final class RecordingInputTests: XCTestCase {
    private func watch(_ frame: Int, _ t: Double) -> [String: Any] {
        ["event": "watch", "frame": frame, "source_t": t, "answers": ["yes"]]
    }

    func testTimesAndCooldownsNoRunWritesAreLeftOut() {
        let lines: [[String: Any]] = [
            ["event": "start", "args": ["--cooldown", "inf"]], ["event": "rules", "rules": [["condition": "a cat"]]],
            watch(1, 1), watch(2, 1e300), watch(3, .nan), watch(4, 4),
        ]
        let recording = Recording.events(lines, videoTime: true)
        XCTAssertNil(recording.cooldown, "inf is no cooldown a watch takes")
        XCTAssertEqual(recording.frames.map(\.index), [1, 4])
        XCTAssertNil(Recording.cooldown(1e300))
        XCTAssertNil(Recording.cooldown(-7))
        XCTAssertEqual(Recording.cooldown(3), 3)
    }

    /// Two runs of one clip in one log: only the last is scored, and the count of runs says so.
    func testALogOfTwoRunsIsScoredOnItsLast() {
        let run: [[String: Any]] = [
            ["event": "start", "args": []], ["event": "rules", "rules": [["condition": "a cat"]]], watch(1, 1), watch(2, 2),
        ]
        let recording = Recording.events(run + run + [watch(3, 3)], videoTime: true)
        XCTAssertEqual(recording.runs, 2)
        XCTAssertEqual(recording.frames.map(\.index), [1, 2, 3])
    }

    /// A log from a clip is timed by video time, a camera's by the time of day: a truth written on
    /// the other clock matches nothing, and is refused with the clock named, not scored as all missed.
    func testATruthOnTheOtherClockIsRefusedWithTheClockNamed() throws {
        let video = Recording.events([["event": "rules", "rules": [["condition": "a cat"]]], watch(1, 2), watch(2, 30)])
        XCTAssertEqual(video.clock, .video)
        let camera = Recording.events([
            ["event": "rules", "rules": [["condition": "a cat"]]],
            ["event": "watch", "frame": 1, "capture_t": 0.0, "t": "2026-12-02T14:00:00.000Z", "answers": ["no"]],
            ["event": "watch", "frame": 2, "capture_t": 60.0, "t": "2026-12-02T14:01:00.000Z", "answers": ["yes"]],
        ])
        XCTAssertEqual(camera.clock, .day)
        let clip = try TruthFile.parse("truth:\n  - when: a cat\n    spans: [\"0:05-0:12\"]\n", source: "clip.yaml")
        let day = try TruthFile.parse("truth:\n  - when: a cat\n    spans: [\"14:00:30-14:02:00\"]\n", source: "day.yaml")
        XCTAssertNil(video.clockProblem(clip, tolerance: 3))
        let onDay = try XCTUnwrap(video.clockProblem(day, tolerance: 3))
        XCTAssertTrue(onDay.contains("timed by video time (0:02–0:30)") && onDay.contains("write the spans in video time"), onDay)
        let onVideo = try XCTUnwrap(camera.clockProblem(clip, tolerance: 3))
        XCTAssertTrue(onVideo.contains("timed by the time of day") && onVideo.contains("(h:mm:ss)"), onVideo)
        // A span on the camera's local time of day (whatever this machine's time zone) is scored.
        let start = Date(timeIntervalSince1970: 1_796_220_000 + 40) // 2026-12-02 14:00:40 UTC
        let local = start.timeIntervalSince(Calendar.current.startOfDay(for: start))
        let span = "\(TruthFile.time(local))-\(TruthFile.time(local + 10))"
        XCTAssertNil(camera.clockProblem(try TruthFile.parse("truth:\n  - when: a cat\n    spans: [\"\(span)\"]\n", source: "t"), tolerance: 0))
    }
}

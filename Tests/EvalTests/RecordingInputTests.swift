import Foundation
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
}

import Foundation
import LookCore
import Records
import Status
import XCTest

/// `lookd status` in words, from a status file's fields.
final class StatusTextTests: XCTestCase {
    func testTheChangeGateLineSaysWhatWasTakenAskedAndSkipped() {
        var gate = GateCounts()
        for k in 0..<200 { gate.add(skipped: k % 20 != 0, at: Double(k) * 30) } // 100 minutes, 1 in 20 asked
        let fields = try? JSONSerialization.jsonObject(with: Data(JSON.object([("gate", gate.json(at: 6000))]).text().utf8))
        var status = fields as? [String: Any] ?? [:]
        status["state"] = "watching"
        let text = StatusFile.describe(status, running: true, path: "/run/lookd/status.json", now: Date())
        XCTAssertTrue(text.contains("change gate: 200 frames taken, 10 asked, 95 % skipped, 96 % in the last hour"), text)
        // The last hour's whole minutes (41–99): frames 82–199, five of them asked (100, 120, …, 180).
        XCTAssertEqual(gate.lastHourShare(at: 6000), 113.0 / 118.0)
    }

    func testARulesRowShowsItsSettingsAndRecentConfidences() {
        let status: [String: Any] = [
            "state": "watching",
            "rules": [
                [
                    "rule": 1, "condition": "a van", "reaction": "say", "shown": "say", "answer": "yes", "fires": 2, "held_back": 3,
                    "settings": "confirm 2 of 3", "confidences": [0.91, 0.35, 0.88],
                ]
            ],
        ]
        let text = StatusFile.describe(status, running: true, path: "status.json", now: Date())
        XCTAssertTrue(text.contains("say · answer yes · P(yes) 0.91 0.35 0.88 · fired 2× · 3 held back · confirm 2 of 3"), text)
    }

    func testTheAnswersLineSaysHowManyCameInAMinuteAndHowOldTheLastOnesFrameWas() {
        let now = Date(timeIntervalSince1970: 1_800_000_000) // whole seconds: a timestamp keeps milliseconds
        var status: [String: Any] = ["state": "watching", "answers_a_minute": 0]
        XCTAssertTrue(StatusFile.describe(status, running: true, path: "s.json", now: now).contains("answers: none yet"))
        status["answers_a_minute"] = 12
        status["last_answer"] = Timestamp.text(now.addingTimeInterval(-3))
        status["answer_age_ms"] = 1340
        let text = StatusFile.describe(status, running: true, path: "s.json", now: now)
        XCTAssertTrue(text.contains("answers: 12 in the last minute; the last 3 s ago, its frame 1.3 s old"), text)
    }

    /// A rule outside its `when_active` hours is inactive, not `?` (which means "cannot be read").
    func testARuleOutsideItsHoursIsInactiveNotUnread() {
        let status: [String: Any] = [
            "state": "watching",
            "rules": [["rule": 1, "condition": "a fox", "reaction": "log", "shown": "log", "fires": 0, "inactive": true]],
        ]
        let text = StatusFile.describe(status, running: true, path: "status.json", now: Date())
        XCTAssertTrue(text.contains("inactive (outside its when_active hours) · log · fired 0×"), text)
        XCTAssertFalse(text.contains("answer ?"), text)
    }
}

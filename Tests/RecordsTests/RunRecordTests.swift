import Foundation
import LookCore
import ReactionDomain
import Records
import Rules
import XCTest

/// The run record from typed outcomes: a frame with a fire and a hold, a late reaction report.
final class RunRecordTests: XCTestCase {
    private func frame(_ index: Int, answers: [Answer], fired: [Int] = [], suppressed: [Int] = []) -> FrameOutcome {
        FrameOutcome(
            index: index, captureT: Double(index), sourceT: nil, label: nil, size: (448, 252), age: 0.01, grab: 0.002,
            decode: nil, scale: nil, prompt: 0.0001, model: 1.5,
            timings: GenerationTimings(firstToken: 1.2, total: 1.5, imageEncode: 0.8, inputTokens: 120, outputTokens: 6),
            raw: "1. Yes", answers: answers, parse: 0.0001, done: 1.6, fired: fired, suppressed: suppressed, places: [:],
            numbers: "first token 1.20 s · total 1.50 s", place: "CPU · on-device", truth: nil, png: nil)
    }

    func testAFrameWithAnEffectsHoldIsRecordedWholeAndCounted() throws {
        let rules = try InlineRules.parse("a cat=effect:ripple|a dog=count").rules
        let record = RunRecord(epoch: 1, rules: rules)
        let first = frame(1, answers: [.yes, .no], fired: [0])
        let fire = FireOutcome(
            number: 1, rule: 0, condition: "a cat", reaction: rules[0].reaction, frame: 1, latency: 1.7,
            sinceChange: nil, result: ReactionResult(performed: true, shown: "ripple · water"),
            place: Place(rule: 0, box: Box(left: 100, top: 200, right: 300, bottom: 400), text: "<box>", seconds: 0.5, tokens: 9),
            holdSetting: 3)
        let hold = HoldOutcome(
            held: 3.01, pausedAt: 1, resumedAt: 1, png: "/tmp/catch1.png", apng: "/tmp/edit1.apng", pictures: 45,
            render: 0.9, renderWait: 0, renderError: nil)
        let end = FrameEnd(index: 1, fired: [(fire, hold)], described: [:])
        record.add(first, end: end, written: 0.0002)
        record.add(frame(2, answers: [.yes, .unread], suppressed: [1]), end: FrameEnd(index: 2, fires: []), written: nil)
        record.add(.timer(.init(condition: "a dog", minutes: 1)))
        XCTAssertEqual(record.frameCount, 2)
        XCTAssertEqual(record.fireCount, 1)
        let summary = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(record.summary(stopReason: "x", seconds: 2).text().utf8)) as? [String: Any])
        XCTAssertEqual(summary["yes"] as? [String: Int], ["a cat": 2, "a dog": 0])
        XCTAssertEqual(summary["unread"] as? Int, 1)
        XCTAssertEqual(summary["suppressed"] as? Int, 1)
        XCTAssertEqual(summary["fires_by_effect"] as? [String: Int], ["ripple": 1])
        XCTAssertEqual((summary["holds"] as? [String: Any])?["count"] as? Int, 1)
        XCTAssertEqual(summary["fires_with_box"] as? Int, 1)

        let entry = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(first.recordEntry(written: 0.0002, end: end).text().utf8)) as? [String: Any])
        XCTAssertEqual(entry["hold_ms"] as? Double, 3010, "the frame's entry carries its holds, written once")
        XCTAssertEqual(entry["record_ms"] as? Double, 0.2, "and the seconds its line took to write")
        XCTAssertEqual((entry["boxes"] as? [Any])?.count, 2, "a box entry per rule")
        let described = DescribeOutcome(fire: 1, rule: 0, condition: "a cat", question: "?", text: "A cat.", seconds: 0.25)
        let fireEntry = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(fire.recordEntry(hold: hold, describe: described).text().utf8)) as? [String: Any])
        XCTAssertEqual(fireEntry["box_unit"] as? [Double], [0.1, 0.2, 0.2, 0.2])
        XCTAssertEqual(fireEntry["pictures"] as? Int, 45)
        XCTAssertEqual(fireEntry["description"] as? String, "A cat.", "the fire's entry is composed of the fire, its hold and its description")
        XCTAssertEqual(fireEntry["describe_ms"] as? Double, 250)
        XCTAssertEqual(fire.holdEventFields(hold)?.first?.0, "fire")
    }

    func testReportsKeepWhetherSoundWasOn() {
        let quiet = ReactionReport.timer(.init(condition: "a kettle", minutes: 4))
        XCTAssertEqual(quiet.fields.map(\.0), ["condition", "minutes"], "sound off: nothing played, no error keys")
        let played = ReactionReport.timer(.init(condition: "a kettle", minutes: 4, chimeError: .some(nil)))
        XCTAssertEqual(played.fields.map(\.0), ["condition", "minutes", "chime_error"])
        XCTAssertEqual(played.event, "timer")
    }
}

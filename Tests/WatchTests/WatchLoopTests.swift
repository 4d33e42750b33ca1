import Config
import Foundation
import LookCore
import Records
import Rules
import Settings
import TestSupport
import VLM
import XCTest

@testable import Watch

/// The loop in-process, with test doubles: a scripted source on a manual clock, the scripted model,
/// and a reaction sink that records.
final class WatchLoopTests: XCTestCase {
    private func loop(
        answers: [String], frames: Int, step: Double, rules: String,
        stopAfter: Int? = nil
    ) throws -> (WatchLoop, RecordingReactions, RunRecord, String) {
        let dir = try Fixtures.scratch()
        let script = try Fixtures.script(answers, in: dir)
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        let set = try config.loadRules().0
        let reactions = RecordingReactions()
        let record = RunRecord(epoch: 1, rules: set.rules)
        let log = dir.appendingPathComponent("events.jsonl").path
        let events = try TestEvents(log: log, record: record, clock: clock)
        let loop = WatchLoop(
            source: ScriptedSource(count: frames, clock: clock, step: step), model: try ScriptedModel(path: script, clock: MonotonicClock()),
            rules: set.rules, config: config, events: events, epoch: 1, reactor: reactions, clock: clock)
        if let stopAfter {
            events.onFrame = { [stop = loop.stop] frame in if frame.index == stopAfter { stop.request("test") } }
        }
        return (loop, reactions, record, log)
    }

    func testFiresOnTheRisingEdgeWithTheCooldownOnTheFramesClock() throws {
        // A frame every 1.4 s: yes, no, yes (2.8 s after the fire: held back), no, yes (5.6 s: fires).
        let (loop, reactions, record, _) = try loop(
            answers: ["1. Yes", "1. No", "1. Yes", "1. No", "1. Yes"], frames: 5,
            step: 1.4, rules: "a cat=chime")
        XCTAssertEqual(try loop.run(), "end of source")
        XCTAssertEqual(reactions.performed.map(\.condition), ["a cat", "a cat"])
        XCTAssertEqual(record.fireCount, 2)
        XCTAssertEqual(record.suppressedCount, 1)
        XCTAssertEqual(record.frameCount, 5)
    }

    func testAStopRequestEndsTheRunAfterTheFrame() throws {
        let (loop, _, record, log) = try loop(answers: ["1. No"], frames: 100, step: 1, rules: "a cat=log", stopAfter: 3)
        XCTAssertEqual(try loop.run(), "test")
        XCTAssertEqual(record.frameCount, 3)
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        XCTAssertEqual(lines.count, 3)
    }

    func testTheNumberedPromptReachesTheModelAndEveryRuleIsAnswered() throws {
        let (loop, reactions, record, _) = try loop(
            answers: ["1. No\\n2. Yes\\n3. Maybe"], frames: 2, step: 1,
            rules: "a cat=chime|a dog=count|a bird=log")
        _ = try loop.run()
        XCTAssertEqual(reactions.performed.map(\.condition), ["a dog"])
        let summary = record.summary(stopReason: "x", seconds: 1).text()
        XCTAssertTrue(summary.contains("\"yes\":{\"a cat\":0,\"a dog\":2,\"a bird\":0}"), summary)
        XCTAssertTrue(summary.contains("\"unread\":2"), summary)
    }

    func testAFailedModelCallIsRecordedAndTheLoopGoesOn() throws {
        let (loop, reactions, record, log) = try loop(
            answers: ["1. No", "!fail the server is down", "!fail the server is down", "1. Yes", "1. Yes"], frames: 5, step: 1,
            rules: "a cat=chime")
        XCTAssertEqual(try loop.run(), "end of source")
        XCTAssertEqual(reactions.performed.map(\.condition), ["a cat"], "the yes after the failures fires")
        XCTAssertEqual(record.failedCount, 2)
        XCTAssertEqual(record.frameCount, 3)
        let failed = try EventLogFile.read(log).filter { $0["event"] as? String == "frame_failed" }
        XCTAssertEqual(failed.map { $0["frame"] as? Int }, [2, 3])
        XCTAssertEqual(failed.map { $0["in_a_row"] as? Int }, [1, 2])
        XCTAssertEqual(failed.first?["reason"] as? String, "The script failed this question: the server is down.")
    }

    func testFailuresInARowEndTheRunWithAnError() throws {
        let (loop, _, record, _) = try loop(answers: ["1. No", "!fail gone"], frames: 50, step: 1, rules: "a cat=chime")
        XCTAssertThrowsError(try loop.run()) { error in
            guard case .failedInARow(let count, let reason) = error as? WatchError else { return XCTFail("\(error)") }
            XCTAssertEqual(count, FailureStage.limit)
            XCTAssertEqual(reason, "The script failed this question: gone.")
        }
        XCTAssertEqual(record.failedCount, FailureStage.limit)
        XCTAssertEqual(record.frameCount, 1)
    }
}

/// A rule's schedule on an injected wall clock: outside it the rule leaves the prompt and does not
/// fire; back in it, it starts fresh.
final class ScheduledRuleLoopTests: XCTestCase {
    func testARuleOutsideItsScheduleIsNotAskedAndStartsFreshWhenActiveAgain() throws {
        let dir = try Fixtures.scratch()
        let rules = dir.appendingPathComponent("rules.yaml").path
        try "rules:\n  - when: a cat\n    count: true\n  - when: a dog\n    log: true\n    when_active: \"08:00-09:00\"\n"
            .write(toFile: rules, atomically: true, encoding: .utf8)
        // Answers as the prompt numbers them: two rules while the dog is active, one outside.
        let script = try Fixtures.script(["1. No\\n2. Yes", "1. No", "1. Yes", "1. No\\n2. Yes", "1. No\\n2. Yes"], in: dir)
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        let set = try config.loadRules().0
        let reactions = RecordingReactions()
        let log = dir.appendingPathComponent("events.jsonl").path
        let events = try TestEvents(log: log, record: RunRecord(epoch: 1, rules: set.rules))
        let loop = WatchLoop(
            source: ScriptedSource(count: 5, clock: clock, step: 1), model: try ScriptedModel(path: script, clock: MonotonicClock()),
            rules: set.rules, config: config,
            events: events, epoch: 1, reactor: reactions, clock: clock)
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        loop.book.calendar = utc
        // Frames at 08:30, 09:10, 09:20, 08:40 the next day, 08:50.
        let times = [(1, 8, 30), (1, 9, 10), (1, 9, 20), (2, 8, 40), (2, 8, 50)].map {
            utc.date(from: DateComponents(year: 2026, month: 12, day: $0.0, hour: $0.1, minute: $0.2))!
        }
        var frame = 0
        clock.setDate(times[0])
        events.onFrame = { _ in
            frame += 1
            clock.setDate(times[min(frame, times.count - 1)])
        }
        XCTAssertEqual(try loop.run(), "end of source")
        let watches = try EventLogFile.read(log).filter { $0["event"] as? String == "watch" }
        XCTAssertEqual(watches.map { $0["inactive"] as? [Int] }, [[], [2], [2], [], []])
        XCTAssertEqual(
            watches.map { $0["answers"] as? [String] }, [["no", "yes"], ["no", "inactive"], ["yes", "inactive"], ["no", "yes"], ["no", "yes"]])
        XCTAssertEqual(loop.snapshot.rows.map(\.inactive), [false, false], "active again at the last frame")
        // The dog fired at 08:30, was away from the prompt, and fires again at 08:40 the next day
        // because its state started fresh (its answer was yes when it left).
        XCTAssertEqual(reactions.performed.map(\.condition), ["a dog", "a cat", "a dog"])
    }
}

/// Rules with a region are asked about that crop; rules that share a region share one question.
final class RegionLoopTests: XCTestCase {
    func testEachRegionIsOneQuestionAboutItsCropAndAnswersGoBackToTheirRules() throws {
        let dir = try Fixtures.scratch()
        let rules = dir.appendingPathComponent("rules.yaml").path
        try """
        rules:
          - when: a cat
            count: true
          - when: a dog
            count: true
            region: [0, 0, 0.5, 0.5]
          - when: a bird
            log: true
          - when: a cow
            log: true
            region: [0, 0, 0.5, 0.5]
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        // Questions in order: the whole frame (cat, bird), then the top left quarter (dog, cow).
        let script = try Fixtures.script(["1. No\\n2. Yes", "1. Yes\\n2. No"], in: dir)
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        let set = try config.loadRules().0
        let model = WatchedModel(try ScriptedModel(path: script, clock: MonotonicClock()))
        let reactions = RecordingReactions()
        let image = RGBImage(width: 40, height: 20, fill: (10, 20, 30))
        let events = try TestEvents(record: RunRecord(epoch: 1, rules: set.rules))
        let loop = WatchLoop(
            source: ScriptedSource(images: [image], clock: clock, step: 1), model: model, rules: set.rules, config: config,
            events: events, epoch: 1, reactor: reactions, clock: clock)
        var outcome: FrameOutcome?
        events.onFrame = { frame in outcome = frame.outcome }
        XCTAssertEqual(try loop.run(), "end of source")
        XCTAssertEqual(model.encodes, 2, "one encoding a distinct region (the whole frame is one)")
        XCTAssertEqual(
            model.asked.map(\.prompt), [config.prompt(for: [set.rules[0], set.rules[2]]), config.prompt(for: [set.rules[1], set.rules[3]])])
        XCTAssertEqual(outcome?.answers, [.no, .yes, .yes, .no], "each answer back in its rule's place")
        XCTAssertEqual(Set(reactions.performed.map(\.condition)), ["a dog", "a bird"])
        XCTAssertEqual(outcome?.raw, "1. No\n2. Yes\n\n1. Yes\n2. No")
    }

    func testACropIsThePartOfTheFrameItNames() {
        var pixels: [UInt8] = []
        for y in 0..<10 { for x in 0..<20 { pixels += [UInt8(x), UInt8(y), 0] } }
        let frame = RGBImage(width: 20, height: 10, pixels: pixels)!
        let crop = frame.cropped(x: 0.5, y: 0.2, w: 0.25, h: 0.5)
        XCTAssertEqual(crop.width, 5)
        XCTAssertEqual(crop.height, 5)
        XCTAssertEqual(crop.pixel(x: 0, y: 0).r, 10)
        XCTAssertEqual(crop.pixel(x: 0, y: 0).g, 2)
        XCTAssertEqual(crop.pixel(x: 4, y: 4).r, 14)
        XCTAssertEqual(crop.pixel(x: 4, y: 4).g, 6)
    }
}

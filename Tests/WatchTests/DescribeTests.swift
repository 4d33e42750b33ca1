import Config
import Foundation
import LookCore
import ReactionDomain
import Reactions
import Records
import Rules
import Settings
import TestSupport
import VLM
import XCTest

@testable import Watch

/// `describe:` in the loop, in-process: the scripted engine answers the yes/no question and then
/// the description, on the frame's own encoding, after the fire went out.
final class DescribeTests: XCTestCase {
    private func run(_ yaml: String, script: [String], frames: Int, configure: (inout WatchConfig) -> Void = { _ in }) throws -> (
        events: TestEvents, reactions: RecordingReactions, model: WatchedModel
    ) {
        let dir = try Fixtures.scratch()
        let rules = dir.appendingPathComponent("rules.yaml").path
        try yaml.write(toFile: rules, atomically: true, encoding: .utf8)
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        configure(&config)
        let set = try config.loadRules().0
        let events = try TestEvents(log: dir.appendingPathComponent("events.jsonl").path, record: RunRecord(epoch: 1, rules: set.rules), clock: clock)
        let reactions = RecordingReactions()
        let model = WatchedModel(try ScriptedModel(path: try Fixtures.script(script, in: dir), clock: MonotonicClock()))
        let loop = WatchLoop(
            source: ScriptedSource(count: frames, clock: clock, step: 1), model: model, rules: set.rules, config: config, events: events,
            epoch: 1, reactor: reactions, clock: clock)
        XCTAssertEqual(try loop.run(), "end of source")
        return (events, reactions, model)
    }

    private func described(_ events: TestEvents) -> [DescribeOutcome] {
        events.all.compactMap { if case .described(let d, _) = $0 { return d } else { return nil } }
    }

    func testAFireIsDescribedAfterItWentOutOnTheFramesOwnEncoding() throws {
        let (events, reactions, model) = try run(
            "rules:\n  - when: a parcel\n    count: true\n    describe: true\n  - when: a dog\n    log: true\n",
            script: ["1. Yes\\n2. No", "A courier leaves a brown box on the step.\\nIt is raining.", "1. Yes\\n2. Yes"], frames: 2)
        let d = described(events)
        XCTAssertEqual(d.count, 1, "the parcel's one fire; the dog has no describe:")
        XCTAssertEqual(d.first?.text, "A courier leaves a brown box on the step. It is raining.", "one line")
        XCTAssertEqual(d.first?.question, Describe.standardQuestion("a parcel"))
        XCTAssertEqual(d.first?.fire, 1)
        XCTAssertEqual(model.encodes, 2, "the description reused the frame's encoding")
        XCTAssertEqual(model.asked.map(\.prompt)[1], Describe.standardQuestion("a parcel"))
        // The fire line first, the description after it; the run record's fire carries it.
        let names = events.all.compactMap { event -> String? in
            switch event {
            case .fired: return "fire"
            case .described: return "described"
            default: return nil
            }
        }
        XCTAssertEqual(names, ["fire", "described", "fire"])
        let entry = try XCTUnwrap(events.record.fireEntries.first?.text())
        XCTAssertTrue(entry.contains("\"description\":\"A courier leaves a brown box on the step. It is raining.\""), entry)
        XCTAssertEqual(reactions.described.first?.text, "A courier leaves a brown box on the step. It is raining.")
        let summary = events.record.summary(stopReason: "x", seconds: 1).text()
        XCTAssertTrue(summary.contains("\"describe_ms\":{"), summary)
    }

    func testAFailedDescriptionIsSaidAndThePastTheBoundAreSkipped() throws {
        let rules = (1...4).map { "  - when: thing \($0)\n    log: true\n    describe: \"What is thing \($0) doing?\"\n" }.joined()
        let (events, reactions, _) = try run(
            "rules:\n" + rules, script: ["1. Yes\\n2. Yes\\n3. Yes\\n4. Yes", "!fail the model broke", "Thing two waves.", "Thing three sits."],
            frames: 1)
        let d = described(events)
        XCTAssertEqual(d.map(\.question), (1...4).map { "What is thing \($0) doing?" })
        XCTAssertNil(d[0].text)
        XCTAssertTrue(d[0].error?.contains("the model failed") == true, d[0].error ?? "")
        XCTAssertEqual(d[1].text, "Thing two waves.")
        XCTAssertEqual(d[2].text, "Thing three sits.")
        XCTAssertTrue(d[3].error?.hasPrefix("skipped: 3 fires of this frame were described already") == true, d[3].error ?? "")
        XCTAssertEqual(reactions.performed.count, 4, "every fire went out whatever became of its description")
    }

    func testDescribeForEveryRuleAndTheSpokenLine() throws {
        let (events, _, _) = try run(
            "rules:\n  - when: a cat\n    log: true\n", script: ["1. Yes", "A cat naps."], frames: 1
        ) { $0.describeAll = true }
        XCTAssertEqual(described(events).first?.text, "A cat naps.")
        XCTAssertEqual(SpokenLine.fill("{description}", description: "A cat naps.", condition: "a cat"), "A cat naps.")
        XCTAssertEqual(SpokenLine.fill("Look: {description}", description: nil, condition: "a cat"), "Look: a cat")
    }
}

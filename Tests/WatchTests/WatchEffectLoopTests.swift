import Config
import Foundation
import Grounding
import LookCore
import Records
import Rules
import Settings
import TestSupport
import VLM
import XCTest

@testable import Watch

/// Effects in the loop, in-process: the place question on the frame's own encoding, the hold on the
/// test's clock, the edit's pictures and the records; and on the real engine with the fixture model.
final class WatchEffectLoopTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    private struct Run {
        var loop: WatchLoop
        var source: ScriptedSource
        var model: WatchedModel
        var record: RunRecord
        var clock: ManualClock
        var events: [[String: Any]] { (try? EventLogFile.read(log)) ?? [] }
        var log: String
    }

    /// A run of `frames` frames (a second apart) over `rules`; `model` answers (scripted by default).
    private func run(
        _ rules: String, answers: [String], frames: Int, configure: (inout WatchConfig) -> Void = { _ in },
        model inner: (any VisionLanguageModel)? = nil, answer: @escaping @Sendable (String) -> String? = { _ in nil }
    ) throws -> Run {
        let script = try Fixtures.script(answers, in: dir)
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        configure(&config)
        let set = try config.loadRules().0
        let record = RunRecord(epoch: 7, rules: set.rules)
        let log = dir.appendingPathComponent("events.jsonl").path
        let source = ScriptedSource(count: frames, clock: clock, step: 1)
        let model = WatchedModel(try inner ?? ScriptedModel(path: script, clock: MonotonicClock()), answer: answer)
        let loop = WatchLoop(
            source: source, model: model, rules: set.rules, config: config, events: try TestEvents(log: log, record: record, clock: clock),
            epoch: 7, reactor: RecordingReactions(), clock: clock)
        XCTAssertEqual(try loop.run(), "end of source")
        return Run(loop: loop, source: source, model: model, record: record, clock: clock, log: log)
    }

    private func fires(_ run: Run) -> [[String: Any]] {
        run.record.fireEntries.compactMap { try? JSONSerialization.jsonObject(with: Data($0.text().utf8)) as? [String: Any] }
    }

    func testTheBoxQuestionReusesTheFramesEncodingAndTheEditIsWritten() throws {
        let r = try run(
            "water rushing over rows of stones=effect:ripple",
            answers: ["1. No", "1. Yes", "<ref>water rushing over rows of stones</ref>:<box>238 0 688 998</box>", "1. No"], frames: 3)
        XCTAssertEqual(r.model.encodes, 3, "one encoding a frame, the box question included")
        XCTAssertEqual(r.model.asked.map(\.prompt)[2], "Detect water rushing over rows of stones in the picture and output its bounding box.")
        let fire = try XCTUnwrap(fires(r).first)
        XCTAssertEqual(fire["box"] as? [Int], [238, 0, 688, 998])
        XCTAssertEqual(fire["box_unit"] as? [Double], [0.238, 0.0, 0.45, 0.998])
        XCTAssertEqual(fire["place_text"] as? String, "<ref>water rushing over rows of stones</ref>:<box>238 0 688 998</box>")
        XCTAssertEqual(fire["held_frame"] as? Int, 2)
        XCTAssertEqual(fire["hold_ms"] as? Double ?? 0, 3000, accuracy: 0.5, "held --hold 3 s on the test's clock")
        XCTAssertNil(fire["render_error"] as? String)
        for key in ["png", "apng"] {
            let path = try XCTUnwrap(fire[key] as? String)
            XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
            XCTAssertTrue(path.hasPrefix(dir.appendingPathComponent("watch-7-effects").path), path)
        }
        XCTAssertFalse(r.source.paused, "the source goes on after the hold")
        // The frame after the hold was taken 3 s later than it would have been.
        let names = r.events.map { $0["event"] as! String }
        XCTAssertEqual(names, ["watch", "watch", "fire", "hold", "watch"], "fire at the hold's start, hold before the next frame")
        let watches = r.events.filter { $0["event"] as? String == "watch" }
        XCTAssertEqual((watches[2]["capture_t"] as? Double ?? 0) - (watches[1]["capture_t"] as? Double ?? 0), 4, accuracy: 1e-6)
        let summary = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(r.record.summary(stopReason: "x", seconds: 1).text().utf8)) as? [String: Any])
        XCTAssertEqual((summary["holds"] as? [String: Any])?["count"] as? Int, 1)
        XCTAssertEqual((summary["boxes_named"] as? [String: Int])?["water rushing over rows of stones"], 1)
        XCTAssertEqual(summary["fires_with_box"] as? Int, 1)
    }

    func testEffectsOnOneFrameHoldOneAfterAnotherInRuleOrder() throws {
        let r = try run(
            "a road=log|a bridge=effect:spotlight/horn|a church=effect:zoom/bells",
            answers: ["1. Yes\\n2. Yes\\n3. Yes", "<box>588 0 1000 181</box>", "I cannot tell.", "1. No\\n2. No\\n3. No"], frames: 2)
        let f = fires(r)
        XCTAssertEqual(f.map { $0["rule"] as! Int }, [1, 2, 3])
        XCTAssertEqual(f[1]["box"] as? [Int], [588, 0, 1000, 181])
        XCTAssertTrue(f[2]["box"] is NSNull, "fewer than four numbers: no box, the edit plays on the whole frame")
        XCTAssertNil(f[0]["hold_ms"], "a log line holds nothing")
        let held = r.events.filter { $0["event"] as? String == "hold" }
        XCTAssertEqual(held.map { $0["fire"] as! Int }, [2, 3])
        let frame1 = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(r.record.frameEntries[0].text().utf8)) as? [String: Any])
        XCTAssertEqual(frame1["hold_ms"] as? Double ?? 0, 6000, accuracy: 1, "two holds followed the frame")
        XCTAssertEqual(frame1["boxes"] as? [NSObject], [NSNull(), [588, 0, 1000, 181] as NSArray, NSNull()])
    }

    func testCellsAskedInWordsInTheYesNoPromptOrNotAtAll() throws {
        let words = try run(
            "a cat=effect:zoom|a dog=count", answers: ["1. Yes\\n2. Yes", "right, top", "on the left", "1. No\\n2. No"],
            frames: 2
        ) {
            $0.cells = .ask; $0.cellWords = true
        }
        XCTAssertEqual(
            words.model.asked[1].prompt, "Where in the picture is a cat? Answer with two words: left, center or right; then top, middle or bottom.")
        XCTAssertEqual(fires(words).map { $0["cell"] as? Int }, [3, 4], "every rule that turns yes is asked, as the seed")
        XCTAssertTrue(fires(words)[0]["box"] is NSNull)

        let batch = try run("a cat=effect:zoom", answers: ["1. Yes 9", "1. No"], frames: 2) { $0.cells = .batch }
        XCTAssertEqual(batch.model.asked.count, 2, "no second question")
        XCTAssertTrue(batch.model.asked[0].prompt.contains("After a Yes, write the cell"))
        XCTAssertEqual(fires(batch).first?["cell"] as? Int, 9)

        let none = try run("a cat=effect:zoom", answers: ["1. Yes", "1. No"], frames: 2) { $0.cells = PlaceForm.none }
        XCTAssertEqual(none.model.asked.count, 2)
        XCTAssertTrue(fires(none).first?["box_unit"] is NSNull)
        XCTAssertNotNil(fires(none).first?["png"] as? String, "the edit plays on the whole frame")
    }

    func testTheRealEngineAnswersTheBoxQuestionOnTheEncodingItMadeForTheFrame() throws {
        // The fixture model's weights are random, so the yes comes from a script; the place question
        // goes to the real engine, on the image it encoded for the yes/no question.
        let engine = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, clock: MonotonicClock())
        let r = try run("a test card=effect:spotlight", answers: [], frames: 2, model: engine) { prompt in
            prompt.hasPrefix(WatchPrompt.instruction) ? "1. Yes" : nil
        }
        XCTAssertEqual(r.model.encodes, 2, "the box question did not encode the frame again")
        let place = try XCTUnwrap(r.model.asked.first { $0.prompt.hasPrefix("Detect a test card") })
        XCTAssertEqual(place.generation.timings.imageEncode, 0)
        XCTAssertGreaterThan(place.generation.timings.outputTokens, 0)
        XCTAssertLessThanOrEqual(place.generation.timings.outputTokens, 48)
        let fire = try XCTUnwrap(fires(r).first)
        XCTAssertEqual(fire["place_text"] as? String, String(place.generation.text.prefix(200)))
        XCTAssertEqual(fire["place_tokens"] as? Int, place.generation.timings.outputTokens)
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(fire["apng"] as? String)))
    }
}

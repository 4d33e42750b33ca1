import Eval
import Rules
import XCTest

/// Scoring and tuning on recordings whose truth is known by construction: every figure exact.
final class ScoringTests: XCTestCase {
    /// A frame a second for `seconds`, the rule's answer yes at the seconds in `yes`.
    private func recording(_ condition: String, seconds: Int, yes: Set<Int>, confidence: ((Int) -> Double)? = nil) -> Recording {
        let frames = (0..<seconds).map { t in
            Recording.Frame(
                index: t + 1, t: Double(t), answers: [condition: yes.contains(t) ? .yes : .no],
                confidence: confidence.map { [condition: $0(t)] } ?? [:])
        }
        return Recording(conditions: [condition], frames: frames, cooldown: 3)
    }

    func testAnswersFiresMissedSpansAndDelaysAreCountedExactly() throws {
        var r = recording("a cat", seconds: 60, yes: Set(11...14).union([25, 42, 43]))
        // The fires the firing rule makes of these answers (defaults, cooldown 3): 11, 25, 42.
        r.fires = Tuning.replay("a cat", frames: r.frames, settings: RuleSettings(), cooldown: 3)
        XCTAssertEqual(r.fires.map(\.t), [11, 25, 42])
        let truth = try TruthFile.parse("truth:\n  - when: a cat\n    spans: [\"0:10-0:15\", \"40-45\", \"0:50-0:52\"]\n", source: "t.yaml")
        let s = try XCTUnwrap(Scoring.score(r, truth: truth, tolerance: 3).first)
        XCTAssertEqual(s.answered, 60)
        // In a span: 10-15 (6 frames), 40-45 (6), 50-52 (3); yes at 11-14 and 42-43 in them, 25 outside.
        XCTAssertEqual([s.truePositive, s.falsePositive, s.falseNegative, s.trueNegative], [6, 1, 9, 44])
        XCTAssertEqual(s.precision!, 6.0 / 7, accuracy: 1e-12)
        XCTAssertEqual(s.recall!, 6.0 / 15, accuracy: 1e-12)
        XCTAssertEqual([s.trueFires, s.falseFires, s.spans, s.missedSpans], [2, 1, 3, 1])
        XCTAssertEqual(s.delays, [1, 2])
        XCTAssertEqual(s.medianDelay, 1.5)
        XCTAssertEqual(s.worstDelay, 2)
        XCTAssertEqual(s.falsePerHour, 60, accuracy: 1e-9, "one false fire in a minute")
        XCTAssertEqual(s.spanRecall!, 2.0 / 3, accuracy: 1e-12)
        XCTAssertNil(s.confident, "no confidences, no second figures")

        // A fire just after a span ends is true within the tolerance, false past it.
        let late = Scoring.score(
            condition: "a cat", frames: [], fires: [.init(condition: "a cat", t: 17.5, frame: 18)], spans: [.init(10, 15)], hours: 1, tolerance: 3)
        XCTAssertEqual([late.trueFires, late.falseFires], [1, 0])
        let tooLate = Scoring.score(
            condition: "a cat", frames: [], fires: [.init(condition: "a cat", t: 18.5, frame: 19)], spans: [.init(10, 15)], hours: 1, tolerance: 3)
        XCTAssertEqual([tooLate.trueFires, tooLate.falseFires, tooLate.missedSpans], [0, 1, 1])
    }

    /// Calibration: a rule that says 0.9 for 20 frames, 10 of them in view, is off by 0.4 (ECE) with
    /// a Brier score of (10 × 0.01 + 10 × 0.81) / 20 = 0.41; one that says 0.95 in view and 0.05 out
    /// of it is off by 0.05 and scores 0.0025. The overall figures pool the answers.
    func testCalibrationSaysHowFarConfidencesAreFromHowOftenTheThingWasInView() throws {
        let truth = try TruthFile.parse(
            "truth:\n  - when: a cat\n    spans: [\"0:00-0:09.5\"]\n  - when: a dog\n    spans: [\"0:00-0:09.5\"]\n", source: "t.yaml")
        let sure = recording("a cat", seconds: 20, yes: Set(0..<20)) { _ in 0.9 }
        let cat = try XCTUnwrap(Scoring.score(sure, truth: truth).first?.calibration)
        XCTAssertEqual(cat.answers, 20)
        XCTAssertEqual(cat.expectedError!, 0.4, accuracy: 1e-12)
        XCTAssertEqual(cat.brier!, 0.41, accuracy: 1e-12)
        XCTAssertEqual(cat.bins[9].answers, 20, "0.9 falls in the last bin")
        XCTAssertEqual(cat.bins[9].inView, 0.5, accuracy: 1e-12)

        let right = recording("a dog", seconds: 20, yes: Set(0..<10)) { $0 < 10 ? 0.95 : 0.05 }
        let dog = try XCTUnwrap(Scoring.score(right, truth: truth).first?.calibration)
        XCTAssertEqual(dog.expectedError!, 0.05, accuracy: 1e-12)
        XCTAssertEqual(dog.brier!, 0.0025, accuracy: 1e-12)

        var both = Recording(conditions: ["a cat", "a dog"], frames: [], cooldown: 3)
        both.frames = zip(sure.frames, right.frames).map { a, b in
            Recording.Frame(
                index: a.index, t: a.t, answers: a.answers.merging(b.answers) { x, _ in x },
                confidence: a.confidence.merging(b.confidence) { x, _ in x })
        }
        let report = EvalReport(scores: Scoring.score(both, truth: truth), recording: both, truth: truth, tolerance: 3)
        let overall = try XCTUnwrap(report.overall.calibration)
        XCTAssertEqual(overall.answers, 40)
        XCTAssertEqual(overall.brier!, (0.41 + 0.0025) / 2, accuracy: 1e-12)
        // Pooled by bin: 0.05 (10 out of view) is off by 0.05; 0.9 and 0.95 share the last bin (30
        // answers, mean p 0.9167, 20 in view: 0.6667), off by 0.25: (10 × 0.05 + 30 × 0.25) / 40.
        XCTAssertEqual(overall.expectedError!, 0.2, accuracy: 1e-12)
        XCTAssertTrue(report.table.contains("0.400 / 0.410"), report.table)
        XCTAssertNil(Scoring.score(recording("a cat", seconds: 5, yes: []), truth: truth).first?.calibration, "no confidences, no calibration")
    }

    func testMinConfidenceTurnsUnsureYesesIntoNos() throws {
        // Yes at 10-19 (in the span, P 0.9) and 30-34 (outside, P 0.4).
        let r = recording("a cat", seconds: 40, yes: Set(10...19).union(30...34)) { $0 < 25 ? 0.9 : 0.4 }
        let truth = try TruthFile.parse("truth:\n  - when: a cat\n    spans: [\"10-19\"]\n", source: "t.yaml")
        let s = try XCTUnwrap(Scoring.score(r, truth: truth, minConfidence: ["a cat": 0.5]).first)
        XCTAssertEqual(s.precision!, 10.0 / 15, accuracy: 1e-12)
        XCTAssertEqual(s.confidentPrecision, 1)
        XCTAssertEqual(s.confidentRecall, 1)
    }

    /// A rule that flickers: while the thing is in view the model says yes every other frame, and it
    /// says yes on four single frames when it is not. `confirm: 2 of 3` fires on each span 2 s after
    /// it starts and never falsely; the defaults fire at once but falsely 4 times; `confirm: 2 of 2`
    /// never fires at all.
    func testTuneFindsConfirmTwoOfThreeForAFlickeringRule() throws {
        let inView = Set(stride(from: 20, through: 30, by: 2)).union(stride(from: 60, through: 70, by: 2))
        let r = recording("a flicker", seconds: 90, yes: inView.union([5, 40, 50, 85]))
        let spans = [TruthFile.Span(20, 30), TruthFile.Span(60, 70)]
        let trials = Tuning.trials("a flicker", recording: r, spans: spans, base: RuleSettings(), cooldown: 3)
        XCTAssertEqual(trials.count, 31, "the rule's own settings and 6 cooldowns × 5 confirms (no confidences: no min_confidence)")
        let best = trials[0]
        XCTAssertEqual([best.settings.confirm, best.settings.window], [2, 3])
        XCTAssertEqual(best.cooldown, 3)
        XCTAssertEqual([best.score.falseFires, best.score.missedSpans], [0, 0])
        XCTAssertEqual(best.score.delays, [2, 2], "the cost: 2 s a span")
        XCTAssertEqual(Tuning.lines(best, defaultCooldown: 3), ["    confirm: 2 of 3"])
        let now = try XCTUnwrap(trials.first { $0.settings == RuleSettings() && $0.cooldown == 3 })
        XCTAssertEqual([now.score.falseFires, now.score.missedSpans], [4, 0])
        XCTAssertEqual(now.score.delays, [0, 0])
        let twoOfTwo = try XCTUnwrap(trials.first { $0.settings.confirm == 2 && $0.settings.window == 2 && $0.cooldown == 3 })
        XCTAssertEqual(twoOfTwo.score.missedSpans, 2, "never two yeses in a row")
    }

    func testATruthFileIsCheckedWithItsLineAndColumn() {
        for (text, message) in [
            (
                "truth:\n  - when: a cat\n    spans: [\"0:12-0:05\"]\n",
                "t.yaml:3:13: a span is START-END in m:ss, h:mm:ss or seconds (\"0:05-0:12\"), not \"0:12-0:05\""
            ),
            (
                "truth:\n  - when: a cat\n    spans: [\"0:05-0:12\", \"0:10-0:20\"]\n",
                "t.yaml:3:26: spans go in order without overlapping: 0:10-0:20 starts before 0:05-0:12 ends"
            ),
            ("truth:\n  - when: a cat\n", "t.yaml:2:5: \"a cat\" has no spans: (write spans: [] for a thing never in view)"),
            ("truth:\n  - when: a cat\n    spans: []\n    colour: red\n", "t.yaml:4:5: unknown key \"colour\"; an entry has when: and spans:"),
        ] {
            XCTAssertThrowsError(try TruthFile.parse(text, source: "t.yaml")) { XCTAssertEqual("\($0)", message) }
        }
        let truth = try? TruthFile.parse(
            "truth:\n  - when: a cat\n    spans: [\"1:02:03.5-1:02:09\"]\n  - when: a dog\n    spans: []\n", source: "t.yaml")
        XCTAssertEqual(truth?.spans(of: "a cat"), [TruthFile.Span(3723.5, 3729)])
        let rules = [Rule(condition: "a cat", reaction: .log)]
        XCTAssertEqual(truth?.problems(against: rules).map(\.description), ["t.yaml:4:11: no rule \"a dog\" is in the rules file"])
    }
}

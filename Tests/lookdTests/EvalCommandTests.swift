import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd eval` and `lookd tune` as a user runs them: a generated clip whose truth is known by
/// construction, answered by the scripted engine (exact figures), the report opened in headless
/// Chromium, the exit status against a standard, and the tiny model (the real engine) end to end.
final class EvalCommandTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A 30 s clip; the cat is in view 0:05-0:10 and 0:20-0:24; the script (a frame a second, by
    /// --pace frames) says yes at 6-10 and 21-23, falsely at 15; the dog is never there, and is
    /// falsely seen at 27.
    private func prepare() throws {
        try TestMedia.clip(path("clip.mp4"), seconds: 30, fps: 5, width: 160, height: 120)
        try "rules:\n  - when: a cat\n    log: true\n  - when: a dog\n    log: true\n".write(
            toFile: path("rules.yaml"), atomically: true, encoding: .utf8)
        try "truth:\n  - when: a cat\n    spans: [\"0:05-0:10\", \"0:20-0:24\"]\n  - when: a dog\n    spans: []\n".write(
            toFile: path("truth.yaml"), atomically: true, encoding: .utf8)
        let lines = (0..<30).map { t -> String in
            let cat = (6...10).contains(t) || (21...23).contains(t) || t == 15
            return "1. \(cat ? "Yes" : "No")\\n2. \(t == 27 ? "Yes" : "No")"
        }
        _ = try Fixtures.script(lines, in: dir)
    }

    private func eval(_ more: [String]) throws -> Subprocess {
        try Subprocess.run(
            Fixtures.lookd,
            [
                "eval", "--source", path("clip.mp4"), "--rules", path("rules.yaml"), "--truth", path("truth.yaml"), "--model",
                "script:" + path("script.txt"), "--record", dir.path,
            ] + more)
    }

    func testEvalGivesTheExactFiguresAndTuneReplaysTheRun() throws {
        try prepare()
        let r = try eval(["--json", path("eval.json"), "--html", path("eval.html")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("a cat      89 % / 73 %"), r.stdout)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("eval.json")))) as? [String: Any])
        XCTAssertEqual(json["frames"] as? Int, 30)
        let rules = try XCTUnwrap(json["rules"] as? [[String: Any]])
        let cat = rules[0], dog = rules[1]
        // The cat: in view on 11 answered frames (0:05-0:10, 0:20-0:24), yes on 8 of them and once outside.
        XCTAssertEqual(
            ["true_positive", "false_positive", "false_negative", "true_negative"].map { cat[$0] as? Int }, [8, 1, 3, 18])
        XCTAssertEqual(cat["true_fires"] as? Int, 2)
        XCTAssertEqual(cat["false_fires"] as? Int, 1)
        XCTAssertEqual(cat["missed_spans"] as? Int, 0)
        XCTAssertEqual(cat["delays_s"] as? [Double], [1, 1])
        XCTAssertEqual(cat["false_fires_per_hour"] as? Double, 120, "one false fire in 30 s")
        XCTAssertEqual(dog["false_fires"] as? Int, 1)
        XCTAssertEqual(dog["spans"] as? Int, 0)
        XCTAssertEqual(json["met"] as? Bool, true, "no standard asked")

        // The HTML report in headless Chromium: a timeline a rule, its fires marked, the truth drawn.
        let dom = try Subprocess.run(
            "/usr/bin/chromium",
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(path("chromium"))", "--dump-dom", "file://" + path("eval.html")]
        ).stdout
        XCTAssertEqual(dom.components(separatedBy: "<svg").count - 1, 2, "a timeline a rule")
        XCTAssertEqual(dom.components(separatedBy: "class=\"fire\"").count - 1, 4, "the cat's 3 fires and the dog's 1")
        XCTAssertEqual(dom.components(separatedBy: "class=\"truth\"").count - 1, 2, "the cat's 2 spans")
        let shot = path("eval.png")
        _ = try Subprocess.run(
            "/usr/bin/chromium",
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--user-data-dir=\(path("chromium"))", "--window-size=1040,560",
                "--screenshot=\(shot)", "file://" + path("eval.html"),
            ])
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0, 20_000)
        print("SCREENSHOT lookd eval's report: \(shot)")

        // Tune on the run's record: the cat's flicker at 0:15 goes with a 10 s cooldown.
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") })
        let tune = try Subprocess.run(
            Fixtures.lookd, ["tune", "--record", path(record), "--truth", path("truth.yaml"), "--rules", path("rules.yaml")])
        XCTAssertEqual(tune.status, 0, tune.stderr)
        XCTAssertTrue(tune.stdout.contains("  now:  0 of 2 spans missed · 1 false fire · median delay 1.0 s · cooldown 3 s"), tune.stdout)
        XCTAssertTrue(tune.stdout.contains("  # a cat: under its when:, beside its reaction\n    cooldown: 10\n"), tune.stdout)
        XCTAssertTrue(tune.stdout.contains("frames replayed in"), tune.stdout)
        // --cooldown is the watch's own setting: its range and its message are the watch's.
        let far = try Subprocess.run(
            Fixtures.lookd, ["tune", "--record", path(record), "--truth", path("truth.yaml"), "--cooldown", "3601"])
        let check = try Subprocess.run(Fixtures.lookd, ["check", "a cat=log", "--cooldown", "3601"])
        XCTAssertEqual(far.status, 2, far.stderr)
        XCTAssertEqual(check.status, 2, check.stderr)
        let problem = try XCTUnwrap(check.stderr.split(separator: "\n").first { $0.contains("--cooldown") }, check.stderr)
        XCTAssertTrue(far.stderr.contains(problem), "tune: \(far.stderr)\ncheck: \(problem)")
    }

    func testTheExitStatusHoldsRulesToAStandardAndBadTruthIsAUsageError() throws {
        try prepare()
        let strict = try eval(["--max-false-per-hour", "100", "--min-recall", "1"])
        XCTAssertEqual(strict.status, 1)
        XCTAssertTrue(strict.stderr.contains("a cat: 120.0 false fires an hour, over --max-false-per-hour 100.0"), strict.stderr)
        XCTAssertTrue(strict.stderr.contains("a dog: 120.0 false fires an hour"), strict.stderr)
        XCTAssertFalse(strict.stderr.contains("of its spans"), "the cat fired on both its spans")
        // A report that could not be written is found before the watch, not after it.
        let unwritable = try eval(["--html", path("rules.yaml") + "/report.html"])
        XCTAssertEqual(unwritable.status, 2)
        XCTAssertTrue(unwritable.stderr.contains("it is a file, not a folder"), unwritable.stderr)
        XCTAssertFalse(unwritable.stderr.contains("Stopped ·"), "no watch ran")
        try "truth:\n  - when: a cow\n    spans: [\"0:01-0:02\"]\n".write(toFile: path("truth.yaml"), atomically: true, encoding: .utf8)
        let wrong = try eval([])
        XCTAssertEqual(wrong.status, 2)
        XCTAssertTrue(wrong.stderr.contains("truth.yaml:2:11: no rule \"a cow\" is in the rules file"), wrong.stderr)
        let check = try Subprocess.run(Fixtures.lookd, ["check", path("rules.yaml"), "--truth", path("truth.yaml")])
        XCTAssertEqual(check.status, 2)
        XCTAssertTrue(check.stderr.contains("no rule \"a cow\""), check.stderr)
    }

    /// The real engine on the tiny model: eval runs the whole way and scores what it said.
    func testEvalRunsTheRealEngineOnTheTinyModel() throws {
        try prepare()
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "eval", "--source", path("clip.mp4"), "--rules", path("rules.yaml"), "--truth", path("truth.yaml"), "--model", Fixtures.model,
                "--mmproj", Fixtures.mmproj, "--record", dir.path, "--every", "5", "--json", path("eval.json"), "--size", "64",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("eval.json")))) as? [String: Any])
        XCTAssertEqual(json["frames"] as? Int, 6, "a frame every 5 s of 30")
        let rules = try XCTUnwrap(json["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.map { $0["answered"] as? Int }, [6, 6])
    }

    /// Hardening 6: a rules file of several cameras is scored a camera at a time (`--camera NAME`:
    /// its clip, its rules, its truth); eval keeps no history and leaves no status behind.
    func testARulesFileOfCamerasIsScoredOneCameraAtATime() throws {
        let example = { (name: String) in Fixtures.root.appendingPathComponent("examples/\(name)").path }
        try "truth:\n  - when: a green triangle\n    spans: [\"0:05.5-0:15.9\"]\n  - when: a green ball\n    spans: [\"0:13.3-0:20.0\"]\n".write(
            toFile: path("yard.truth.yaml"), atomically: true, encoding: .utf8)
        let env = ["LOOKD_MODELS": path("models"), "GGML_NO_BACKTRACE": "1"]
        let none = try Subprocess.run(
            Fixtures.lookd, ["eval", "--rules", example("cameras.yaml"), "--truth", path("yard.truth.yaml"), "--model", "shapes-tiny"],
            environment: env)
        XCTAssertEqual(none.status, 2, none.stderr)
        XCTAssertTrue(none.stderr.contains("the rules file has cameras (door, yard)"), none.stderr)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "eval", "--rules", example("cameras.yaml"), "--truth", path("yard.truth.yaml"), "--camera", "yard", "--model", "shapes-tiny",
                "--record", path("run"),
            ], environment: env)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("a green ball") && r.stdout.contains("a yellow star"), r.stdout)
        XCTAssertFalse(r.stdout.contains("a red square"), "the door's rule is not the yard's\n\(r.stdout)")
        XCTAssertTrue(r.stdout.contains("20 frames answered"), "the yard's 20 s clip alone\n\(r.stdout)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("run/lookd-history.sqlite")), "eval keeps no history")
    }
}

import Foundation
import LookCore
import Platform
import TestFixtures
import TestSupport
import XCTest

/// `lookd watch` run as a subprocess on media ffmpeg makes: the scripted engine drives firing from a
/// file, and the real engine runs on the fixture model.
final class WatchCommandTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func watch(_ arguments: [String], onStart: ((Process) -> Void)? = nil) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, ["watch"] + arguments, environment: ["GGML_NO_BACKTRACE": "1"], onStart: onStart)
    }

    private func events(_ file: String) throws -> [[String: Any]] { try EventLogFile.read(file) }

    private func record(in folder: String) throws -> [String: Any] {
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("watch-run-") })
        let data = try Data(contentsOf: URL(fileURLWithPath: (folder as NSString).appendingPathComponent(name)))
        return try XCTUnwrap(JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func script(_ lines: [String]) throws -> String { try Fixtures.script(lines, in: dir) }

    func testScriptedAnswersFireOnTheRisingEdgeWithTheCooldownInVideoTime() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 5, fps: 10)
        // Frames every 0.5 s of video: rule 1 yes at 0.5 s, no, yes at 1.5 s (within 3 s: held back),
        // no, yes at 4.0 s (fires again); rule 2 never readable.
        let answers = [
            "1. No\\n2. Hmm", "1. Yes\\n2. Hmm", "1. No\\n2. Hmm", "1. Yes\\n2. Hmm", "1. No\\n2. Hmm",
            "1. No\\n2. Hmm", "1. No\\n2. Hmm", "1. No\\n2. Hmm", "1. Yes\\n2. Hmm", "1. Yes\\n2. Hmm",
        ]
        let out = path("out")
        let r = try watch([
            "--source", clip, "--rules", "a test card=count|a bird=log", "--model", "script:" + (try script(answers)),
            "--pace", "frames", "--every", "0.5", "--record", out, "--frames", path("frames"),
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        // The first lines say where everything goes; off a terminal, no live line (a line every 100 frames).
        let eventsPath = (out as NSString).appendingPathComponent("lookd-events.jsonl")
        XCTAssertTrue(r.stderr.contains("lookd: records: events in \(eventsPath); the run record at \(out)/watch-run-"), r.stderr)
        XCTAssertFalse(r.stderr.contains(" frames · 1."), r.stderr)
        let log = try events((out as NSString).appendingPathComponent("lookd-events.jsonl"))
        XCTAssertEqual(
            log.map { $0["event"] as! String }.filter { $0 != "watch" && $0 != "fire" },
            ["start", "ready", "source", "rules", "sounds", "stop", "done"])
        let watches = log.filter { $0["event"] as? String == "watch" }
        XCTAssertEqual(watches.count, 10)
        XCTAssertEqual(watches.map { ($0["fired"] as! [Int]).count }, [0, 1, 0, 0, 0, 0, 0, 0, 1, 0])
        XCTAssertEqual(watches[3]["suppressed"] as? [Int], [1])
        XCTAssertEqual(watches[2]["answers"] as? [String], ["no", "?"])
        XCTAssertEqual(watches[1]["source_t"] as? Double ?? -1, 0.5, accuracy: 0.01)
        let fires = log.filter { $0["event"] as? String == "fire" }
        XCTAssertEqual(fires.map { $0["frame"] as! Int }, [2, 9])
        XCTAssertEqual(fires.map { $0["shown"] as! String }, ["×1", "×2"])
        XCTAssertEqual(fires.first?["performed"] as? Bool, true)

        let rec = try record(in: out)
        XCTAssertEqual(rec["schema"] as? String, "lookd-watch-run/1")
        XCTAssertEqual(rec["engine"] as? String, "script · script.txt")
        XCTAssertEqual(
            rec["prompt"] as? String,
            "Answer each question with Yes or No, each answer on its own numbered line.\n1. Is there a test card?\n2. Is there a bird?")
        XCTAssertEqual((rec["frames"] as? [Any])?.count, 10)
        XCTAssertEqual((rec["fires"] as? [Any])?.count, 2)
        XCTAssertEqual((rec["suppressed"] as? [Any])?.count, 1)
        let summary = try XCTUnwrap(rec["summary"] as? [String: Any])
        XCTAssertEqual(summary["frames"] as? Int, 10)
        XCTAssertEqual(summary["unread"] as? Int, 10)
        XCTAssertEqual(summary["yes"] as? [String: Int], ["a test card": 4, "a bird": 0])
        XCTAssertEqual(summary["fires_by_rule"] as? [String: Int], ["a test card": 2])
        XCTAssertEqual(summary["fires_by_reaction"] as? [String: Int], ["count": 2])
        XCTAssertEqual(summary["stop"] as? String, "end of source")
        for key in ["frame_ms", "model_ms", "grab_ms", "first_token_ms"] {
            let s = try XCTUnwrap(summary[key] as? [String: Double], key)
            XCTAssertLessThanOrEqual(s["min"]!, s["median"]!)
            XCTAssertLessThanOrEqual(s["median"]!, s["max"]!)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("frames")).filter { $0.hasSuffix(".png") }.count, 10)
    }

    func testTheRealEngineEndToEndOnAGeneratedClip() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 2, fps: 15)
        let out = path("out")
        let r = try watch([
            "--source", clip, "--rules", Fixtures.root.appendingPathComponent("rules.example.yaml").path,
            "--model", Fixtures.model, "--mmproj", Fixtures.mmproj, "--record", out,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let rec = try record(in: out)
        XCTAssertEqual(rec["engine"] as? String, "llama.cpp · tiny-minicpmv-Q8_0.gguf")
        let frames = try XCTUnwrap(rec["frames"] as? [[String: Any]])
        XCTAssertGreaterThan(frames.count, 1)
        for frame in frames {
            // Eleven rules (one disabled is not asked); the night-time rule is asked only from 22:00 to 06:00.
            let answers = try XCTUnwrap(frame["answers"] as? [String])
            XCTAssertEqual(answers.count, 11)
            let inactive = try XCTUnwrap(frame["inactive"] as? [Int])
            XCTAssertTrue(inactive == [] || inactive == [11], "\(inactive)")
            XCTAssertEqual(answers.enumerated().filter { $0.element == "inactive" }.map { $0.offset + 1 }, inactive, "not asked: inactive")
            XCTAssertFalse(answers.contains("?"), "constrained: the rest all read")
            XCTAssertGreaterThan(frame["tokens_in"] as? Int ?? 0, 64)
            XCTAssertNotNil(frame["raw"] as? String)
        }
        let times = frames.compactMap { $0["source_t"] as? Double }
        XCTAssertEqual(times, times.sorted(), "real time moves forward")
        XCTAssertTrue(r.stderr.contains("Stopped · \(frames.count) frames"), r.stderr)
    }

    func testThreadsReachTheEngineAndDefaultToThePhysicalCores() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 1, fps: 5)
        func threads(_ extra: [String]) throws -> Int? {
            let out = path("out-\(extra.count)")
            let r = try watch(
                [
                    "--source", clip, "--rules", "a cat=log", "--model", Fixtures.model, "--mmproj", Fixtures.mmproj,
                    "--pace", "frames", "--seconds", "0.5", "--record", out,
                ] + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            let ready = try events((out as NSString).appendingPathComponent("lookd-events.jsonl")).first { $0["event"] as? String == "ready" }
            return ready?["threads"] as? Int
        }
        XCTAssertEqual(try threads(["--threads", "1"]), 1)
        XCTAssertEqual(try threads([]), CPUCores.physical())
        let bad = try watch(["--source", clip, "--rules", "a cat=log", "--threads", "0"])
        XCTAssertEqual(bad.status, 2, "a thread count below 1 is bad usage")
    }

    func testSIGTERMStopsAfterTheFrameAndStillWritesTheRecord() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let out = path("out")
        let log = (out as NSString).appendingPathComponent("lookd-events.jsonl")
        let r = try watch([
            "--source", photos, "--photo-seconds", "0", "--rules", "a cat=log", "--model", "script:" + (try script(["1. No"])),
            "--record", out,
        ]) { process in
            EventLogFile.waitForLines(log, containing: "\"watch\"", count: 5)
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        let log2 = try events(log)
        XCTAssertEqual(log2.last?["event"] as? String, "done")
        XCTAssertEqual(log2.first { $0["event"] as? String == "stop" }?["reason"] as? String, "SIGTERM")
        let summary = try XCTUnwrap(try record(in: out)["summary"] as? [String: Any])
        XCTAssertEqual(summary["stop"] as? String, "SIGTERM")
        XCTAssertGreaterThanOrEqual(summary["frames"] as? Int ?? 0, 5)
    }

    func testSIGKILLLosesNothingAlreadyLogged() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let log = path("events.jsonl")
        _ = try watch([
            "--source", photos, "--photo-seconds", "0", "--rules", "a cat=log", "--model", "script:" + (try script(["1. Yes", "1. No"])),
            "--log", log, "--record", path("out"),
        ]) { process in
            EventLogFile.waitForLines(log, containing: "\"watch\"", count: 30)
            kill(process.processIdentifier, SIGKILL)
        }
        let text = try String(contentsOfFile: log, encoding: .utf8)
        XCTAssertTrue(text.hasSuffix("\n"), "no half-written line")
        let all = try events(log)
        XCTAssertGreaterThanOrEqual(all.filter { $0["event"] as? String == "watch" }.count, 30)
        XCTAssertEqual(all.filter { $0["event"] as? String == "fire" }.count, 1, "a yes that stays fires once")
    }

    func testSecondsTriggerAndDelay() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let trigger = path("go")
        let out = path("out")
        let started = Date()
        let r = try watch([
            "--source", photos, "--rules", "a cat=log", "--model", "script:" + (try script(["1. No"])),
            "--trigger", trigger, "--delay", "0.3", "--seconds", "1", "--record", out,
        ]) { _ in
            usleep(500_000)
            FileManager.default.createFile(atPath: trigger, contents: Data())
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThanOrEqual(Date().timeIntervalSince(started), 1.8, "trigger, delay, then one second")
        let all = try events((out as NSString).appendingPathComponent("lookd-events.jsonl"))
        XCTAssertEqual(all.map { $0["event"] as! String }.first { $0 == "trigger" }, "trigger")
        XCTAssertEqual(try XCTUnwrap(try record(in: out)["summary"] as? [String: Any])["stop"] as? String, "seconds")
    }

    func testBadRulesAndSourcesStopBeforeStarting() throws {
        let rules = path("rules.yaml")
        try "rules:\n  - when: a cat\n    sound: trumpet\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 1)
        let bad = try watch(["--source", clip, "--rules", rules, "--model", "script:" + (try script(["1. No"]))])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("\(rules):3:12: unknown sound \"trumpet\""), bad.stderr)

        let none = try watch(["--source", clip, "--rules", "", "--model", "script:" + (try script(["1. No"]))])
        XCTAssertEqual(none.status, 2)
        XCTAssertTrue(none.stderr.contains("Add a rule first"), none.stderr)

        let notVideo = path("notes.mp4")
        try "hello".write(toFile: notVideo, atomically: true, encoding: .utf8)
        let r = try watch(["--source", notVideo, "--rules", "a cat=log", "--model", "script:" + (try script(["1. No"])), "--record", path("o")])
        XCTAssertEqual(r.status, 7)
        XCTAssertTrue(r.stderr.contains("Could not open that video (\(notVideo))"), r.stderr)
    }

    func testPhotosWithTruthLabelsAreScored() throws {
        let photos = path("photos")
        try FileManager.default.createDirectory(atPath: photos, withIntermediateDirectories: true)
        try TestMedia.photo((photos as NSString).appendingPathComponent("object.png"), width: 64, height: 64, source: "color=c=brown")
        try TestMedia.photo((photos as NSString).appendingPathComponent("sign.png"), width: 64, height: 64, source: "color=c=white")
        let out = path("out")
        // Photos in name order, the next every frame: object, sign, object, sign. The script is right
        // about the object and wrong about the sign's second rule.
        let r = try watch([
            "--source", photos, "--photo-seconds", "0", "--rules", "a chessboard=chime|a sign=count",
            "--truth", "object:yes,no;sign:no,yes", "--seconds", "60",
            "--model", "script:" + (try script(["1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. No", "1. No\\n2. No"])),
            "--record", out,
        ]) { process in
            EventLogFile.waitForLines((out as NSString).appendingPathComponent("lookd-events.jsonl"), containing: "\"watch\"", count: 4)
            kill(process.processIdentifier, SIGINT)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        let rec = try record(in: out)
        let frames = try XCTUnwrap(rec["frames"] as? [[String: Any]]).prefix(4)
        XCTAssertEqual(frames.map { $0["label"] as? String }, ["object.png", "sign.png", "object.png", "sign.png"])
        XCTAssertEqual(frames.map { $0["matched"] as? Int }, [2, 1, 2, 1])
        let summary = try XCTUnwrap(rec["summary"] as? [String: Any])
        let scored = try XCTUnwrap(summary["answers_scored"] as? Int)
        let matched = try XCTUnwrap(summary["answers_matched"] as? Int)
        XCTAssertEqual(scored, 2 * (summary["frames"] as? Int ?? 0))
        XCTAssertGreaterThanOrEqual(matched, 6)
    }

    func testCheckPrintsTheRulesAsUnderstood() throws {
        let r = try Subprocess.run(Fixtures.lookd, ["check", Fixtures.root.appendingPathComponent("rules.example.yaml").path])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("11 rules in"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  1. a chessboard → chime  (line 24)"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("  9. a delivery van → say:The van is here  [cooldown 600 s · confirm 2 of 3 · min confidence 0.8]"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  (disabled, line 63) a bird on the feeder → count"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  7. a package on the doorstep → run:logger -t lookd \"a package was left\"  (line 37)"), r.stdout)
        XCTAssertTrue(
            r.stdout.contains("  8. a dog on the sofa → post:http://127.0.0.1:8123/*** (json, with the snapshot)  (line 39)"),
            r.stdout)
        XCTAssertTrue(r.stdout.contains("  6. water rushing over rows of stones → effect:ripple/water (its own sound)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  gate: the change gate ignores [0.8,0,1,0.12]"), r.stdout)
        XCTAssertTrue(r.stdout.contains("  2. Is there a lighthouse?"), r.stdout)
        let bad = try Subprocess.run(Fixtures.lookd, ["check", "a cat=woof"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("unknown reaction \"woof\""), bad.stderr)
    }

    /// A watch of the stream at `url` for `seconds` (one rule, the scripted engine), which must end
    /// well, and its event log.
    private func watchStream(_ url: String, seconds: Int) throws -> (Subprocess, [[String: Any]]) {
        let out = path("out")
        let r = try watch([
            "--source", url, "--rules", "a test card=log", "--model", "script:" + (try script(["1. No"])), "--seconds", String(seconds),
            "--no-sound", "--record", out,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        return (r, try events((out as NSString).appendingPathComponent("lookd-events.jsonl")))
    }

    func testAStreamThatDropsIsReopenedWithBackoffAndTheRunGoesOn() throws {
        // ffmpeg serves the stream over HTTP to one reader, ends it, and after a gap serves it again.
        let port = Int.random(in: 20_000...40_000)
        let serve =
            "ffmpeg -v error -re -f lavfi -i testsrc2=s=320x180:r=25 -t SECONDS -c:v mpeg1video -f mpegts -listen 1 http://127.0.0.1:\(port)/"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/bin/sh")
        server.arguments = [
            "-c", serve.replacingOccurrences(of: "SECONDS", with: "2") + "; sleep 2; " + serve.replacingOccurrences(of: "SECONDS", with: "4"),
        ]
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        usleep(500_000)
        let (r, log) = try watchStream("http://127.0.0.1:\(port)/", seconds: 9)
        let kinds = log.map { $0["event"] as! String }
        let lost = try XCTUnwrap(kinds.firstIndex(of: "stream_lost"), r.stderr)
        let found = try XCTUnwrap(kinds.firstIndex(of: "stream_found"), r.stderr)
        XCTAssertLessThan(lost, found)
        XCTAssertEqual(log[lost]["reason"] as? String, "the stream ended")
        XCTAssertTrue(kinds[found...].contains("watch"), "frames are answered again after the stream came back")
        XCTAssertEqual(log.first { $0["event"] as? String == "stop" }?["reason"] as? String, "seconds")
    }

    /// A stream whose data turns to garbage (bytes keep coming, no picture comes of them) is lost
    /// 10 s after its last picture, said so, and reopened; not 38 s of silence.
    func testAStreamThatTurnsToGarbageIsLostWithinTheLimit() throws {
        let ts = path("start.ts")
        try Subprocess.shell(
            "ffmpeg -v error -y -f lavfi -i testsrc2=s=320x180:r=25 -t 2 -c:v mpeg1video -f mpegts '\(ts)'")
        let server = try GarbageStreamServer(start: ts)
        let (r, log) = try watchStream(server.url, seconds: 30)
        let lost = try XCTUnwrap(log.first { $0["event"] as? String == "stream_lost" }, r.stderr)
        let stamp = ISO8601DateFormatter()
        stamp.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        func time(_ line: [String: Any]?) throws -> Double {
            try XCTUnwrap((line?["t"] as? String).flatMap(stamp.date)?.timeIntervalSince1970, "\(line ?? [:])")
        }
        let firstFrame = try time(log.first { $0["event"] as? String == "watch" })
        let lostAt = try time(lost)
        // The garbage starts about 1 s in; random bytes now and then decode to a picture, which
        // puts the limit off: measured 10.2–16.6 s. 38 s went by before.
        XCTAssertLessThan(lostAt - firstFrame, 26, "lost within the 10 s limit of the last picture: \(lost)")
        XCTAssertTrue((lost["reason"] as? String ?? "").contains("no picture came of the stream's data for 10 s"), "\(lost)")
        print("MEASURE garbage stream lost \(lostAt - firstFrame) s after the first frame: \(lost["reason"] ?? "")")
    }

    func testTheGateSkipsAStillVideoInRealTimeAndRecordsWhy() throws {
        let clip = path("still.mp4")
        try Subprocess.shell("ffmpeg -v error -y -f lavfi -i color=c=gray:s=320x180:r=10:d=3 -pix_fmt yuv420p '\(clip)'")
        let out = path("out")
        let r = try watch([
            "--source", clip, "--rules", "a test card=count", "--model", "script:" + (try script(["1. No"])), "--gate-fps", "10",
            "--no-sound", "--record", out,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let watches = try events((out as NSString).appendingPathComponent("lookd-events.jsonl")).filter { $0["event"] as? String == "watch" }
        XCTAssertEqual(watches.first?["asked"] as? String, "first")
        XCTAssertEqual(watches.count, 1, "a still video is asked about once")
        let gate = try XCTUnwrap((try record(in: out))["summary"] as? [String: Any])["gate"] as? [String: Any]
        XCTAssertGreaterThan(gate?["skipped"] as? Int ?? 0, 10)
        XCTAssertEqual(gate?["answered"] as? Int, 1)

        let bad = try watch(["--source", clip, "--rules", "a=log", "--gate-mask", "0,0,1", "--model", "script:x"])
        XCTAssertEqual(bad.status, 2)
        XCTAssertTrue(bad.stderr.contains("--gate-mask \"0,0,1\": a gate mask is four numbers"), bad.stderr)
    }

    func testConstrainedAnswersAlwaysParseWithAConfidenceEach() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 2, fps: 5)
        for count in [1, 3, 20] {
            let out = path("out-\(count)")
            let rules = (0..<count).map { "thing number \($0)=count" }.joined(separator: "|")
            let r = try watch([
                "--source", clip, "--rules", rules, "--model", Fixtures.model, "--mmproj", Fixtures.mmproj, "--pace", "frames",
                "--no-sound", "--record", out,
            ])
            XCTAssertEqual(r.status, 0, r.stderr)
            let watches = try events((out as NSString).appendingPathComponent("lookd-events.jsonl")).filter { $0["event"] as? String == "watch" }
            XCTAssertEqual(watches.count, 2)
            for w in watches {
                let answers = try XCTUnwrap(w["answers"] as? [String])
                XCTAssertEqual(answers.count, count)
                XCTAssertFalse(answers.contains("?"), "a constrained answer always parses: \(w["raw"] ?? "")")
                let confidence = try XCTUnwrap(w["confidence"] as? [Double])
                XCTAssertEqual(confidence.count, count)
                XCTAssertTrue(confidence.allSatisfy { (0...1).contains($0) }, "\(confidence)")
                XCTAssertEqual(zip(answers, confidence).filter { ($0 == "yes") != ($1 >= 0.5) }.count, 0, "the choice follows the confidence")
                let lines = (w["raw"] as? String ?? "").split(separator: "\n").map(String.init)
                XCTAssertEqual(lines, (1...count).map { "\($0). \(answers[$0 - 1] == "yes" ? "Yes" : "No")" })
                XCTAssertEqual(w["decode_steps"] as? Int, count - 1, "one decode step a line after the first")
            }
        }
    }

    func testConfirmAndDisappearDriveFiresEndToEnd() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 4, fps: 10)
        let rules = path("rules.yaml")
        try """
        rules:
          - when: a person
            count: true
            confirm: 2 of 3
          - when: a car
            log: true
            on: disappear
            cooldown: 0
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        // Frames every 0.5 s: rule 1 flickers, then stays; rule 2 comes and goes twice.
        let answers = [
            "1. Yes\\n2. Yes", "1. No\\n2. Yes", "1. No\\n2. No", "1. Yes\\n2. No",
            "1. Yes\\n2. Yes", "1. Yes\\n2. No", "1. Yes\\n2. No", "1. Yes\\n2. No",
        ]
        let out = path("out")
        let r = try watch([
            "--source", clip, "--rules", rules, "--model", "script:" + (try script(answers)), "--pace", "frames", "--every", "0.5",
            "--no-sound", "--record", out,
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let log = try events((out as NSString).appendingPathComponent("lookd-events.jsonl"))
        let fires = log.filter { $0["event"] as? String == "fire" }
        XCTAssertEqual(fires.map { $0["rule"] as? Int }, [2, 1, 2])
        XCTAssertEqual(fires.map { $0["frame"] as? Int }, [3, 5, 6])
        XCTAssertEqual(fires.map { $0["edge"] as? String }, ["disappear", "appear", "disappear"])
        XCTAssertEqual(fires[1]["confirmed"] as? String, "2 of 3")
        let watches = log.filter { $0["event"] as? String == "watch" }
        let held = watches.map { ($0["held_back"] as? [[String: Any]] ?? []).map { "\($0["rule"] as? Int ?? 0):\($0["why"] as? String ?? "")" } }
        XCTAssertEqual(held[0], ["1:confirm"], "the first yes waits for a second")
        XCTAssertEqual(held[3], ["1:confirm"])
        XCTAssertEqual(held[4], [], "the second yes of three fires")
    }
}

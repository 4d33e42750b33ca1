import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd watch` reactions heard through a real PulseAudio server of the test's own.
final class WatchSoundTests: XCTestCase {
    private var server: PulseServer!
    private var dir: URL!

    override func setUpWithError() throws {
        server = try PulseServer()
        dir = try Fixtures.scratch()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func watch(
        _ answers: [String], rules: String, seconds: String, extra: [String] = [],
        onStart: ((Process) -> Void)? = nil
    ) throws -> (Subprocess, [[String: Any]]) {
        let script = try Fixtures.script(answers, in: dir)
        let log = path("events.jsonl")
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", try TestMedia.photoFolder(in: dir), "--photo-seconds", "1", "--rules", rules,
                "--model", "script:" + script, "--seconds", seconds, "--log", log,
                "--record", path("out"),
            ] + extra,
            environment: ["PULSE_SERVER": server.address], onStart: onStart)
        return (r, try EventLogFile.read(log))
    }

    func testTheChimeASpokenLineAndAnEffectsSoundAreHeard() throws {
        let recording = try server.record(to: path("heard.wav"))
        // Frame 1: nothing. Then the chime and the line; later the effect's own sound (bells).
        let (r, log) = try watch(
            ["1. No\\n2. No\\n3. No", "1. Yes\\n2. Yes\\n3. No", "1. Yes\\n2. Yes\\n3. Yes"],
            rules: "a cat=chime|a dog=say:There is a dog|a church=effect:spotlight", seconds: "2")
        XCTAssertEqual(r.status, 0, r.stderr)
        let audio = try recording.stop()
        let fires = log.filter { $0["event"] as? String == "fire" }
        XCTAssertEqual(fires.map { $0["condition"] as? String }, ["a cat", "a dog", "a church"])
        XCTAssertEqual(fires.map { $0["performed"] as? Bool }, [true, true, true])
        XCTAssertEqual(log.filter { $0["event"] as? String == "hold" }.count, 1, "the effect held its frame while its sound played")
        let sounds = log.filter { $0["event"] as? String == "sound" }
        XCTAssertEqual(Set(sounds.compactMap { $0["sound"] as? String }), ["chime", "bells"])
        for sound in sounds {
            XCTAssertNil(sound["error"] as? String)
            XCTAssertLessThan(sound["sound_ms"] as? Double ?? 9999, 500)
            XCTAssertGreaterThanOrEqual(sound["sound_s"] as? Double ?? 0, (sound["clip_s"] as? Double ?? 99) - 0.1)
        }
        let speech = try XCTUnwrap(log.first { $0["event"] as? String == "speech" })
        XCTAssertEqual(speech["line"] as? String, "There is a dog")
        XCTAssertLessThan(speech["speech_start_ms"] as? Double ?? 0, speech["speech_end_ms"] as? Double ?? 0)
        let span = try XCTUnwrap(audio.soundSpan(), "nothing was heard")
        XCTAssertGreaterThan(span.length, 2.5, "the bells last 3 s")
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: path("out")).first { $0.hasPrefix("watch-run-") })
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("out/\(record)")))) as? [String: Any])
        XCTAssertEqual((json["sounds"] as? [Any])?.count, 2)
        XCTAssertEqual((json["speech"] as? [Any])?.count, 1)
    }

    func testNothingFiresNothingIsHeard() throws {
        let recording = try server.record(to: path("silence.wav"))
        let (r, log) = try watch(["1. No"], rules: "a cat=chime", seconds: "1")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(log.filter { $0["event"] as? String == "fire" }.isEmpty)
        XCTAssertNil(try recording.stop().soundSpan())
    }

    func testWithoutASoundServerTheWatchGoesOnAndSaysSoOnce() throws {
        server.stop()
        // The chime fires three times (a yes after each no, 3 s apart on the run's clock at most…):
        // every fire is recorded as not performed, and the error line appears once.
        let (r, log) = try watch(["1. Yes", "1. No", "1. Yes"], rules: "a cat=chime", seconds: "1", extra: ["--cooldown", "0"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let fires = log.filter { $0["event"] as? String == "fire" }
        XCTAssertEqual(fires.count, 2)
        for fire in fires {
            XCTAssertEqual(fire["performed"] as? Bool, false)
            XCTAssertTrue((fire["note"] as? String ?? "").hasPrefix("no sound server"), "\(fire)")
        }
        XCTAssertEqual(
            r.stderr.components(separatedBy: "no sound server").count - 1, 1 + fires.count,
            "one error line, and the fire lines that mention it")
        XCTAssertGreaterThan(log.filter { $0["event"] as? String == "watch" }.count, 3, "the watch went on")
    }

    func testTheServerGoingAwayMidRunDoesNotStopTheWatch() throws {
        let script = ["1. Yes"] + Array(repeating: "1. No", count: 3) + ["1. Yes"] + Array(repeating: "1. No", count: 3)
        let (r, log) = try watch(script, rules: "a cat=chime", seconds: "3", extra: ["--cooldown", "0"]) { _ in
            usleep(1_200_000)
            self.server.stop()
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        let watches = log.filter { $0["event"] as? String == "watch" }
        XCTAssertGreaterThan(watches.count, 5)
        XCTAssertEqual(log.last?["event"] as? String, "done")
    }
}

import Foundation
import TestFixtures
import TestSupport
import XCTest

/// Clips end to end: `lookd watch --clips on` on a video writes a clip of each fire holding the
/// pre-roll before its frame and the post-roll after (within a keyframe interval), as ffprobe
/// reads it; the `clip` event reaches the log, the run record, the history and the status; fires
/// that overlap share one clip; `clip: false` leaves a rule's fires without one.
final class ClipCommandTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private var runtime: [String: String] { ["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""] }

    /// A 20 s H.264 video (a keyframe each second) watched a frame each second of video, with the
    /// scripted answers; the event log's lines.
    private func watch(_ answers: [String], rules: String, extra: [String] = []) throws -> [[String: Any]] {
        let video = path("in.mp4")
        try TestMedia.clip(video, seconds: 20, fps: 30, width: 640, height: 480)
        let script = try Fixtures.script(answers, in: dir)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", video, "--rules", rules, "--model", "script:" + script, "--pace", "frames", "--every", "1",
                "--no-sound", "--record", path("records"), "--log", path("events.jsonl"), "--state", "off", "--clips", "on", "--cooldown", "0",
            ] + extra, environment: runtime)
        XCTAssertEqual(r.status, 0, r.stderr)
        return try EventLogFile.read(path("events.jsonl"))
    }

    private func seconds(ofVideo file: String) throws -> Double {
        let out = try Subprocess.shell("ffprobe -v error -show_entries format=duration -of csv=p=0 '\(file)'").stdout
        return Double(out.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }

    func testAFiresClipHoldsThePreRollAndThePostRoll() throws {
        // The test card "appears" on the frame at 10 s of video.
        let events = try watch(Array(repeating: "1. No", count: 10) + ["1. Yes", "1. No"], rules: "a test card=log")
        let clips = events.filter { $0["event"] as? String == "clip" }
        XCTAssertEqual(clips.count, 1, "\(clips)")
        let clip = try XCTUnwrap(clips.first)
        let file = try XCTUnwrap(clip["clip"] as? String)
        XCTAssertEqual((file as NSString).deletingLastPathComponent, path("records/clips"))
        XCTAssertEqual(clip["fire"] as? Int, 1)
        XCTAssertEqual(clip["method"] as? String, "copy", "an H.264 video's packets are copied")
        XCTAssertEqual(clip["start_s"] as? Double ?? -1, 5, accuracy: 0.01, "the keyframe at 5 s: 10 s − the 5 s pre-roll")
        XCTAssertEqual(clip["before_s"] as? Double ?? -1, 5, accuracy: 0.01)
        XCTAssertEqual(try seconds(ofVideo: file), 10, accuracy: 0.1, "5 s before the fire's frame and 5 s after")
        XCTAssertEqual(clip["duration_s"] as? Double ?? -1, try seconds(ofVideo: file), accuracy: 0.05)
        XCTAssertEqual(clip["bytes"] as? Int, try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        // The fire's line comes first; the clip follows it.
        let order = events.compactMap { $0["event"] as? String }.filter { ["fire", "clip"].contains($0) }
        XCTAssertEqual(order, ["fire", "clip"])
        // The run record, the history, the status.
        let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: path("records")).first { $0.hasPrefix("watch-run-") })
        let json = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("records/" + record)))) as? [String: Any])
        XCTAssertEqual((json["clips"] as? [[String: Any]])?.first?["clip"] as? String, file)
        XCTAssertEqual(((json["summary"] as? [String: Any])?["clips"] as? [String: Any])?["written"] as? Int, 1)
        let history = try Subprocess.run(Fixtures.lookd, ["history", "--json", "--db", path("records/lookd-history.sqlite")], environment: runtime)
        let fires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], history.stdout)
        XCTAssertEqual(fires.first?["clip"] as? String, file)
        let status = try Subprocess.run(Fixtures.lookd, ["status"], environment: runtime)
        XCTAssertTrue(status.stdout.contains("clips: 1 written, the last \(file)"), status.stdout)
    }

    func testFiresThatOverlapShareOneClipAndClipFalseHasNone() throws {
        let rules = path("rules.yaml")
        try """
        rules:
          - when: a test card
            log: true
          - when: a cat
            log: true
            clip: false
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        // The card at 8 s and again at 11 s (within the first clip's 5 s after): one clip, 3–16 s.
        // The cat at 10 s has none.
        var answers = Array(repeating: "1. No\\n2. No", count: 8)
        answers += ["1. Yes\\n2. No", "1. No\\n2. No", "1. No\\n2. Yes", "1. Yes\\n2. No", "1. No\\n2. No"]
        let events = try watch(answers, rules: rules)
        let fires = events.filter { $0["event"] as? String == "fire" }
        XCTAssertEqual(fires.compactMap { $0["condition"] as? String }, ["a test card", "a cat", "a test card"])
        let clips = events.filter { $0["event"] as? String == "clip" }
        XCTAssertEqual(clips.compactMap { $0["fire"] as? Int }, [1, 3], "the cat's fire (2) has no clip")
        XCTAssertEqual(Set(clips.compactMap { $0["clip"] as? String }).count, 1, "one clip for both")
        XCTAssertEqual(clips.first?["fires"] as? [Int], [1, 3])
        let file = try XCTUnwrap(clips.first?["clip"] as? String)
        XCTAssertEqual(clips.first?["start_s"] as? Double ?? -1, 3, accuracy: 0.01)
        XCTAssertEqual(try seconds(ofVideo: file), 13, accuracy: 0.1, "from 3 s to 16 s")
        XCTAssertEqual(clips.last?["before_s"] as? Double ?? -1, 8, accuracy: 0.01, "the second fire is 8 s into it")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("records/clips")).count, 1)
    }

    func testAFolderOfPhotosHasNoClipsAndSaysWhy() throws {
        let r = try Subprocess.run(
            Fixtures.lookd,
            ["watch", "--source", try TestMedia.photoFolder(in: dir), "--rules", "a cat=log", "--model", "script:x", "--clips", "on"],
            environment: runtime)
        XCTAssertEqual(r.status, 2)
        XCTAssertTrue(r.stderr.contains("--clips needs a video, a stream or a camera"), r.stderr)
    }

    func testOverTheSizeTheOldestClipsGoWithTheirFires() throws {
        // Three fires far apart (3 s, 10 s, 17 s), three clips; the size lets only the newest stay.
        var answers = Array(repeating: "1. No", count: 20)
        for i in [3, 10, 17] { answers[i] = "1. Yes" }
        let events = try watch(answers, rules: "a test card=log", extra: ["--pre-roll", "2", "--post-roll", "2", "--keep-size", "1k"])
        let clips = events.filter { $0["event"] as? String == "clip" }.compactMap { $0["clip"] as? String }
        XCTAssertEqual(clips.count, 3)
        let removed = events.filter { $0["event"] as? String == "clips_removed" }
        XCTAssertEqual(removed.flatMap { $0["clips"] as? [String] ?? [] }, Array(clips.prefix(2)), "the oldest first")
        XCTAssertTrue(removed.allSatisfy { ($0["why"] as? String) == "over 1.00 KB" }, "\(removed)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path("records/clips")), [(clips[2] as NSString).lastPathComponent])
        let history = try Subprocess.run(Fixtures.lookd, ["history", "--json", "--db", path("records/lookd-history.sqlite")], environment: runtime)
        let fires = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]], history.stdout)
        XCTAssertEqual(fires.compactMap { $0["clip"] as? String }, [clips[2]], "their fires went with them")
    }

    func testAPostAndACommandThatWaitForTheClipGetIt() throws {
        let server = try PostServer()
        let rules = path("rules.yaml")
        try """
        rules:
          - when: a test card
            post: {url: "\(server.url("/ok"))", wait: clip}
          - when: a cat
            run: {command: [/bin/sh, -c, 'test -s "$LOOKD_CLIP" && echo written; echo "clip=$LOOKD_CLIP"'], wait: clip}
        """.write(toFile: rules, atomically: true, encoding: .utf8)
        let events = try watch(
            Array(repeating: "1. No\\n2. No", count: 5) + ["1. Yes\\n2. Yes", "1. No\\n2. No"], rules: rules,
            extra: ["--pre-roll", "1", "--post-roll", "1"])
        let clips = events.filter { $0["event"] as? String == "clip" }
        let file = try XCTUnwrap(clips.first?["clip"] as? String, "\(events)")
        // The post: the fire as JSON with the clip named, and the clip itself as the part `clip`.
        Poll.until(within: 10) { !server.requests.isEmpty }
        let request = try XCTUnwrap(server.requests.first)
        let type = try XCTUnwrap(request.headers["Content-Type"])
        let boundary = try XCTUnwrap(type.firstMatch(of: /multipart\/form-data; boundary=(\S+)/)?.1, type)
        var parts: [String: Data] = [:]
        for chunk in request.body.split(separator: Data("--\(boundary)".utf8)) {
            guard let head = chunk.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let header = String(decoding: chunk[chunk.startIndex..<head.lowerBound], as: UTF8.self)
            guard let name = header.firstMatch(of: /name="([^"]+)"/)?.1 else { continue }
            parts[String(name)] = Data(chunk[head.upperBound...].dropLast(2))
        }
        XCTAssertEqual(parts["clip"], try Data(contentsOf: URL(fileURLWithPath: file)), "the clip as it is on the disk")
        let fire = try XCTUnwrap(try JSONSerialization.jsonObject(with: try XCTUnwrap(parts["fire"])) as? [String: Any])
        XCTAssertEqual(fire["clip"] as? String, file)
        XCTAssertEqual(fire["condition"] as? String, "a test card")
        // The command: the clip's path in LOOKD_CLIP (the same clip: the two fires overlapped).
        let command = try XCTUnwrap(events.first { $0["event"] as? String == "command" }, "\(events)")
        XCTAssertEqual(command["output"] as? String, "written\nclip=\(file)\n")
        // The post went after the clip was written, not at the fire.
        let order = events.compactMap { $0["event"] as? String }.filter { ["fire", "clip", "post"].contains($0) }
        XCTAssertEqual(order, ["fire", "fire", "clip", "clip", "post"])
    }

    func testWaitForAClipWithClipFalseIsRefusedAtLoad() throws {
        let rules = path("rules.yaml")
        try "rules:\n  - when: a cat\n    post: {url: \"http://127.0.0.1:9/\", wait: clip}\n    clip: false\n".write(
            toFile: rules, atomically: true, encoding: .utf8)
        let check = try Subprocess.run(Fixtures.lookd, ["check", rules])
        XCTAssertEqual(check.status, 2, check.stdout + check.stderr)
        XCTAssertTrue(check.stderr.contains("clip: false, and its post waits for the clip (wait: clip): one of the two"), check.stderr)
    }
}

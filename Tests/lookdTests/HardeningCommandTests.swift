import Foundation
import TestSupport
import XCTest

/// The hardening round's cases, run as a user runs lookd: secrets, links, records that collide,
/// reports and JSON that must stay clean.
final class HardeningCommandTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// `check --json --truth`: standard output is the JSON alone.
    func testCheckJSONWithATruthPrintsOnlyJSON() throws {
        try "rules:\n  - when: a cat\n    log: true\n".write(toFile: path("r.yaml"), atomically: true, encoding: .utf8)
        try "truth:\n  - when: a cat\n    spans: [\"0:01-0:02\"]\n".write(toFile: path("t.yaml"), atomically: true, encoding: .utf8)
        let r = try Subprocess.run(Fixtures.lookd, ["check", path("r.yaml"), "--json", "--truth", path("t.yaml")])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)), r.stdout)
        XCTAssertTrue(r.stderr.contains("1 rule, 1 span"), r.stderr)
    }

    /// An inline rule's post password is not in `check`'s header.
    func testCheckMasksAnInlinePostsPassword() throws {
        let r = try Subprocess.run(Fixtures.lookd, ["check", "a cat=post:https://u:hunter2@example.com/hook?key=k2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertFalse(r.stdout.contains("hunter2") || r.stdout.contains("k2"), r.stdout)
    }

    /// A missing script is the user's own file: no advice to pull a model.
    func testAMissingScriptSaysWhatAScriptIs() throws {
        let r = try Subprocess.run(
            Fixtures.lookd, ["watch", "--source", path("none.mp4"), "--rules", "a cat=log", "--model", "script:" + path("nope.txt")])
        XCTAssertNotEqual(r.status, 0)
        XCTAssertTrue(r.stderr.contains("The script file \(path("nope.txt")) does not exist"), r.stderr)
        XCTAssertFalse(r.stderr.contains("lookd pull"), r.stderr)
    }

    /// A report in a folder that is not there is refused before the watch, and no folder is made.
    func testEvalRefusesAReportInAMissingFolder() throws {
        try "rules:\n  - when: a cat\n    log: true\n".write(toFile: path("r.yaml"), atomically: true, encoding: .utf8)
        try "truth:\n  - when: a cat\n    spans: []\n".write(toFile: path("t.yaml"), atomically: true, encoding: .utf8)
        let report = path("no/such/dir/r.html")
        let r = try Subprocess.run(
            Fixtures.lookd, ["eval", "--source", path("none.mp4"), "--rules", path("r.yaml"), "--truth", path("t.yaml"), "--html", report])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("does not exist"), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("no")))
    }

    /// Two watches that start in the same second with one record folder keep both run records.
    func testTwoRunsInOneSecondKeepBothRecords() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes"], in: dir)
        try FileManager.default.createDirectory(atPath: path("records"), withIntermediateDirectories: true)
        let runs = try (0..<2).map { i -> Process in
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
            p.arguments = [
                "watch", "--source", photos, "--rules", "a cat=log", "--model", "script:" + script, "--no-sound", "--seconds", "1",
                "--record", path("records"), "--status", path("status-\(i).json"),
            ]
            p.standardError = FileHandle.nullDevice
            p.standardOutput = FileHandle.nullDevice
            try p.run()
            return p
        }
        for p in runs { p.waitUntilExit() }
        let records = try FileManager.default.contentsOfDirectory(atPath: path("records")).filter { $0.hasPrefix("watch-run-") }
        XCTAssertEqual(records.count, 2, "\(records)")
        for record in records {
            let text = try String(contentsOfFile: path("records/" + record), encoding: .utf8)
            XCTAssertTrue(text.contains("\"rules\""), "a whole record: \(record)")
        }
    }

    /// A folder where the state file should be: the run goes on, and says so on the terminal and in
    /// the event log (a service's journal is not the only place a user reads).
    func testAFolderAtTheStatePathIsAWarningInTheEventLogToo() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes"], in: dir)
        try FileManager.default.createDirectory(atPath: path("state"), withIntermediateDirectories: true)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a cat=log", "--model", "script:" + script, "--no-sound", "--seconds", "1",
                "--record", dir.path, "--state", path("state"), "--log", path("events.jsonl"),
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(path("state")) is a folder, not lookd's state file"), r.stderr)
        let warnings = try EventLogFile.read(path("events.jsonl")).filter { $0["event"] as? String == "warning" }
        XCTAssertEqual(warnings.map { $0["stage"] as? String }, ["state"])
        XCTAssertTrue((warnings.first?["message"] as? String ?? "").contains("kept in memory only"), "\(warnings)")
    }

    /// SIGTERM at any moment of a watch's start (the tower's copy, the model's load, the source's
    /// open, the first frame): it stops, and never crashes (the handler exits at once while
    /// llama.cpp loads; it called exit() there, running C++ destructors under a loading thread).
    func testSIGTERMAtAnyMomentOfTheStartStopsWithoutACrash() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 2, fps: 10)
        let cache = path("models")
        var outcomes: [Int32: Int] = [:]
        for run in 0..<12 {
            let delay = 0.02 + Double(run) * 0.05
            let r = try Subprocess.run(
                Fixtures.lookd,
                [
                    "watch", "--source", clip, "--rules", "a test card=log", "--model", Fixtures.model47, "--mmproj", Fixtures.mmproj47,
                    "--no-sound", "--record", path("out-\(run)"), "--log", path("events-\(run).jsonl"),
                ],
                environment: ["LOOKD_MODELS": cache, "GGML_NO_BACKTRACE": "1"]
            ) { process in
                usleep(useconds_t(delay * 1_000_000))
                kill(process.processIdentifier, SIGTERM)
            }
            outcomes[r.status, default: 0] += 1
            XCTAssertTrue([0, 15].contains(r.status), "SIGTERM after \(delay) s: status \(r.status): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error") || r.stderr.contains("terminate called"), r.stderr)
        }
        print("MEASURE SIGTERM at 0.02-0.57 s into a watch's start: exit statuses \(outcomes)")
        let partials = (try? FileManager.default.subpathsOfDirectory(atPath: cache))?.filter { $0.contains(".partial") } ?? []
        XCTAssertEqual(partials, [], "an interrupted tower copy leaves no partial file")
    }

    /// A camera's URL with its password: in no line on the terminal or in the event log.
    func testACamerasPasswordIsNeverWritten() throws {
        let source = "rtsp://admin:hunter2@127.0.0.1:9/stream?token=t0ps3cret"
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", source, "--rules", "a cat=log", "--model", "script:/dev/null", "--no-sound", "--seconds", "2",
                "--log", path("events.jsonl"), "--record", dir.path, "--status", path("status.json"),
            ])
        let written =
            r.stdout + r.stderr + ((try? String(contentsOfFile: path("events.jsonl"), encoding: .utf8)) ?? "")
            + ((try? String(contentsOfFile: path("status.json"), encoding: .utf8)) ?? "")
        XCTAssertTrue(written.contains("127.0.0.1"), "the source is named: \(written)")
        XCTAssertFalse(written.contains("hunter2"), written)
        XCTAssertFalse(written.contains("t0ps3cret"), written)
    }
}

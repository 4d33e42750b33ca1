import Foundation
import TestSupport
import XCTest

/// Several instances side by side, as `lookd@NAME` runs them: each its own status file
/// (/run/lookd-NAME, here under a scratch run folder), event log and records; `lookd status`
/// lists them and `lookd status NAME` shows one.
final class InstanceTests: XCTestCase {
    /// A watch on `photos` whose scripted model says yes, with `arguments`, running until stopped (60 s at most).
    static func start(_ name: String, in dir: URL, photos: String, _ arguments: [String], _ env: [String: String] = [:]) throws -> Process {
        let script = dir.appendingPathComponent("\(name).txt").path
        try "!wait 0.05 1. Yes\n".write(toFile: script, atomically: true, encoding: .utf8)
        let w = Process()
        w.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        w.arguments =
            ["watch", "--source", photos, "--model", "script:" + script, "--photo-seconds", "0", "--no-sound", "--seconds", "60"] + arguments
        w.environment = ProcessInfo.processInfo.environment.merging(env) { $1 }
        w.standardError = FileHandle.nullDevice
        try w.run()
        return w
    }

    func testTwoInstancesKeepSeparateStatusesAndLogsAndStatusListsThem() throws {
        let dir = try Fixtures.scratch()
        let run = dir.appendingPathComponent("run").path
        let photos = try TestMedia.photoFolder(in: dir)
        var watches: [Process] = []
        defer { for w in watches where w.isRunning { w.terminate() } }
        for (name, rule) in [("front", "a test card=count"), ("back", "a cat=log")] {
            let state = dir.appendingPathComponent(name).path
            try FileManager.default.createDirectory(atPath: state + "/snapshots", withIntermediateDirectories: true)
            // The template unit's own options, with /var/lib/lookd and /run moved into the scratch folder.
            watches.append(
                try Self.start(
                    name, in: dir, photos: photos,
                    [
                        "--rules", rule, "--name", name, "--record", state, "--log", state + "/lookd-events.jsonl", "--snapshots",
                        state + "/snapshots", "--status", "\(run)/lookd-\(name)/status.json",
                    ]))
        }
        for name in ["front", "back"] {
            EventLogFile.waitForLines(dir.appendingPathComponent("\(name)/lookd-events.jsonl").path, containing: "\"event\":\"fire\"")
        }
        let env = ["LOOKD_RUN_DIR": run]
        let all = try Subprocess.run(Fixtures.lookd, ["status"], environment: env)
        XCTAssertEqual(all.status, 0, all.stderr)
        XCTAssertTrue(all.stdout.contains("lookd@back: watching · \(photos)"), all.stdout)
        XCTAssertTrue(all.stdout.contains("lookd@front: watching · \(photos)"), all.stdout)
        let front = try Subprocess.run(Fixtures.lookd, ["status", "front"], environment: env)
        XCTAssertEqual(front.status, 0, front.stderr)
        XCTAssertTrue(front.stdout.contains("a test card → count"), front.stdout)
        XCTAssertFalse(front.stdout.contains("a cat"), front.stdout)
        let none = try Subprocess.run(Fixtures.lookd, ["status", "garage"], environment: env)
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(
            none.stderr.contains("No instance garage: \(run)/lookd-garage/status.json does not exist (those with a status file: back, front)"),
            none.stderr)
        // Each log has its own rule's fires only.
        for (name, condition) in [("front", "a test card"), ("back", "a cat")] {
            let fires = try EventLogFile.read(dir.appendingPathComponent("\(name)/lookd-events.jsonl").path).filter {
                $0["event"] as? String == "fire"
            }
            XCTAssertFalse(fires.isEmpty)
            XCTAssertTrue(fires.allSatisfy { $0["condition"] as? String == condition }, name)
        }
    }
}

/// Watches started by hand: each keeps its own status file (`status-<pid>.json`), `lookd status`
/// lists them all, and `lookd history` asks which when they keep histories of their own.
final class HandStartedWatchesTests: XCTestCase {
    func testTwoWatchesByHandKeepTheirOwnStatusAndStatusListsBoth() throws {
        let dir = try Fixtures.scratch()
        let runtime = dir.appendingPathComponent("xdg").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let photos = try TestMedia.photoFolder(in: dir)
        let env = ["XDG_RUNTIME_DIR": runtime]
        var watches: [Process] = []
        defer { for w in watches where w.isRunning { w.terminate() } }
        for name in ["one", "two"] {
            let record = dir.appendingPathComponent(name).path
            watches.append(try InstanceTests.start(name, in: dir, photos: photos, ["--rules", "a test card=count", "--record", record], env))
        }
        for name in ["one", "two"] {
            EventLogFile.waitForLines(dir.appendingPathComponent("\(name)/lookd-events.jsonl").path, containing: "\"event\":\"fire\"")
        }
        // (A status file is written to a hidden temporary file and renamed: those come and go.)
        let files = try FileManager.default.contentsOfDirectory(atPath: runtime + "/lookd").filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(files, watches.map { "status-\($0.processIdentifier).json" }.sorted(), "one status file a watch")
        let status = try Subprocess.run(Fixtures.lookd, ["status"], environment: env)
        XCTAssertEqual(status.status, 0, status.stderr)
        for w in watches { XCTAssertTrue(status.stdout.contains("pid \(w.processIdentifier) ("), status.stdout) }
        let history = try Subprocess.run(Fixtures.lookd, ["history"], environment: env)
        XCTAssertEqual(history.status, 1)
        XCTAssertTrue(history.stderr.contains("Several watches are running, each with its history"), history.stderr)
        let one = try Subprocess.run(Fixtures.lookd, ["history", "--db", dir.appendingPathComponent("one/lookd-history.sqlite").path])
        XCTAssertEqual(one.status, 0, one.stderr)
        XCTAssertTrue(one.stdout.contains("a test card"), one.stdout)
    }

    /// A watch whose source is missing leaves nothing: no record folder, run record or event log.
    func testAWatchThatNeverStartsLeavesNothingBehind() throws {
        let dir = try Fixtures.scratch()
        let record = dir.appendingPathComponent("records/today").path
        let state = dir.appendingPathComponent("state.json").path
        let run = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", dir.appendingPathComponent("missing.mp4").path, "--rules", "a cat=log", "--model",
                "script:" + (try Fixtures.script(["1. Yes"], in: dir)), "--record", record, "--state", state, "--no-sound",
                "--log", dir.appendingPathComponent("logs/today/events.jsonl").path,
            ])
        XCTAssertNotEqual(run.status, 0)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: dir.appendingPathComponent("logs").path), "the log's folder, made as the record's, is gone too")
        XCTAssertFalse(FileManager.default.fileExists(atPath: record), "the record folder it made is gone again")
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".lock"), "no lock is left")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), ["script.txt"], "nothing but the test's own script")
    }
}

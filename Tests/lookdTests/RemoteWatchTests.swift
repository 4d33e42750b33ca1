import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd watch --engine`: a server that fails for a while costs the watch failed frames, each
/// recorded with its reason, one error line for the outage and one when it is back; then frames are
/// answered again. The records name the engine.
final class RemoteWatchTests: XCTestCase {
    func testAServerOutageIsWaitedOutAndRecorded() throws {
        let dir = try Fixtures.scratch()
        let server = try EngineStandIn()
        try server.answer("ok", text: "1. Yes")
        let photos = try TestMedia.photoFolder(in: dir)
        let log = dir.appendingPathComponent("events.jsonl").path
        let err = dir.appendingPathComponent("stderr.txt").path
        FileManager.default.createFile(atPath: err, contents: nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--source", photos, "--rules", "a test card=log", "--engine", server.url, "--model", "tiny", "--photo-seconds", "0",
            "--no-sound", "--record", dir.path, "--log", log, "--status", dir.appendingPathComponent("status.json").path,
            "--first-token-timeout", "1", "--engine-tries", "1", "--seconds", "120",
        ]
        p.standardError = FileHandle(forWritingAtPath: err)
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: 3)
        try server.answer("500")
        EventLogFile.waitForLines(log, containing: "\"event\":\"frame_failed\"", count: 5)
        let status = try Subprocess.run(Fixtures.lookd, ["status", "--status", dir.appendingPathComponent("status.json").path])
        XCTAssertTrue(status.stdout.contains("engine failing since frame "), status.stdout)
        XCTAssertTrue(status.stdout.contains("HTTP 500: the GPU is on fire"), status.stdout)
        try server.answer("ok")
        let answeredBefore = try EventLogFile.read(log).filter { $0["event"] as? String == "watch" }.count
        EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: answeredBefore + 3)
        XCTAssertTrue(p.isRunning, "five failed frames in a row (which end an in-process watch) did not end it")
        p.terminate()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)

        let events = try EventLogFile.read(log)
        let failed = events.filter { $0["event"] as? String == "frame_failed" }
        XCTAssertGreaterThanOrEqual(failed.count, 5)
        XCTAssertTrue(failed.allSatisfy { ($0["reason"] as? String)?.contains("HTTP 500: the GPU is on fire") == true }, "\(failed)")
        let start = try XCTUnwrap(events.first { $0["event"] as? String == "start" })
        XCTAssertEqual(
            (start["engine"] as? String) ?? (events.first { $0["engine"] != nil }?["engine"] as? String), "remote · tiny @ 127.0.0.1:\(server.port)")
        let stderr = try String(contentsOfFile: err, encoding: .utf8)
        XCTAssertEqual(stderr.components(separatedBy: "the engine's server failed").count - 1, 1, "one error line for the outage: \(stderr)")
        XCTAssertTrue(stderr.contains("the engine's server answers again after"), stderr)
        let record = try XCTUnwrap(
            FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") && $0.hasSuffix(".json") })
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(record))) as? [String: Any])
        XCTAssertEqual(json["engine"] as? String, "remote · tiny @ 127.0.0.1:\(server.port)")
    }
}

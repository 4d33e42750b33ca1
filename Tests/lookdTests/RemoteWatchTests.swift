import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `lookd watch --engine`: the command line's wiring of a remote engine, end to end: frames answered
/// by the server, the records and the status naming the engine, and a stop that exits 0. (The
/// outage itself, waited out with backoff, is RemoteOutageTests's, in-process on a manual clock.)
final class RemoteWatchTests: XCTestCase {
    func testAWatchAsksTheServerAndTheRecordsNameTheEngine() throws {
        let dir = try Fixtures.scratch()
        let server = try EngineStandIn()
        try server.answer("ok", text: "1. Yes")
        let photos = try TestMedia.photoFolder(in: dir)
        let log = dir.appendingPathComponent("events.jsonl").path
        let status = dir.appendingPathComponent("status.json").path
        let run = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a test card=log", "--engine", server.url, "--model", "tiny", "--photo-seconds", "0",
                "--no-sound", "--record", dir.path, "--log", log, "--status", status, "--first-token-timeout", "1", "--engine-tries", "1",
                "--seconds", "2",
            ])
        XCTAssertEqual(run.status, 0, run.stderr)
        let events = try EventLogFile.read(log)
        XCTAssertGreaterThanOrEqual(events.filter { $0["event"] as? String == "watch" }.count, 2)
        XCTAssertEqual(events.filter { $0["event"] as? String == "fire" }.count, 1, "the answer turned yes once")
        let engine = "remote · tiny @ 127.0.0.1:\(server.port)"
        XCTAssertEqual(events.first { $0["event"] as? String == "ready" }?["engine"] as? String, engine)
        let record = try XCTUnwrap(
            FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasPrefix("watch-run-") && $0.hasSuffix(".json") })
        let json = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent(record))) as? [String: Any])
        XCTAssertEqual(json["engine"] as? String, engine)
        let shown = try Subprocess.run(Fixtures.lookd, ["status", "--status", status])
        XCTAssertTrue(shown.stdout.contains(engine), shown.stdout)
    }
}

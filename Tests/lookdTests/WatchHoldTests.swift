import Foundation
import TestSupport
import XCTest

/// Holds on a real video, as a subprocess: the video stands still during the hold and goes on from
/// where it stopped, no frame is taken meanwhile, and SIGTERM lets a hold finish first.
final class WatchHoldTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func script(_ lines: [String]) throws -> String { try Fixtures.script(lines, in: dir) }

    func testAVideoPausesDuringTheHoldAndGoesOnFromWhereItStopped() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 3, fps: 10)
        let log = path("events.jsonl")
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", clip, "--rules", "a test card=effect:zoom",
                "--model", "script:" + (try script(["1. No", "1. Yes", "<box>100 100 400 500</box>", "1. No"])),
                "--hold", "1.5", "--no-sound", "--log", log, "--record", path("out"),
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try EventLogFile.read(log).filter { ["watch", "fire", "hold"].contains($0["event"] as! String) }
        let names = events.map { $0["event"] as! String }
        let at = try XCTUnwrap(names.firstIndex(of: "fire"))
        XCTAssertEqual(Array(names[(at - 1)...(at + 2)]), ["watch", "fire", "hold", "watch"], "no frame taken during the hold")
        let fired = events[at - 1], hold = events[at + 1], after = events[at + 2]
        let heldMs = try XCTUnwrap(hold["hold_ms"] as? Double)
        XCTAssertGreaterThanOrEqual(heldMs, 1500)
        XCTAssertLessThan(heldMs, 2500)
        let paused = try XCTUnwrap(hold["paused_t_s"] as? Double), resumed = try XCTUnwrap(hold["resumed_t_s"] as? Double)
        XCTAssertEqual(paused, resumed, accuracy: 0.05, "the video stood still")
        XCTAssertGreaterThanOrEqual(paused, fired["source_t"] as? Double ?? 99, "paused at the answered frame or just after")
        let next = try XCTUnwrap(after["source_t"] as? Double)
        XCTAssertGreaterThanOrEqual(next, resumed - 0.01)
        XCTAssertLessThan(next - resumed, 0.5, "went on from where it stopped, not 1.5 s further on")
        XCTAssertGreaterThanOrEqual((after["capture_t"] as? Double ?? 0) - (fired["capture_t"] as? Double ?? 0), 1.5)
    }

    func testSIGTERMDuringAHoldLetsTheHoldFinishAndWritesTheRecord() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let log = path("events.jsonl")
        let out = path("out")
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--photo-seconds", "0", "--rules", "a cat=effect:ripple",
                "--model", "script:" + (try script(["1. No", "1. Yes", "<box>0 0 500 500</box>", "1. No"])),
                "--hold", "2", "--no-sound", "--log", log, "--record", out,
            ]
        ) { process in
            EventLogFile.waitForLines(log, containing: "\"event\":\"fire\"")
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try EventLogFile.read(log)
        let names = events.map { $0["event"] as! String }
        XCTAssertEqual(Array(names.suffix(4)), ["fire", "hold", "stop", "done"], "the hold finished, then the run stopped")
        XCTAssertGreaterThanOrEqual(events[names.count - 3]["hold_ms"] as? Double ?? 0, 1990)
        XCTAssertEqual(events[names.count - 2]["reason"] as? String, "SIGTERM")
        let record = try XCTUnwrap(events.last?["record"] as? String)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: record))) as? [String: Any])
        let fire = try XCTUnwrap((json["fires"] as? [[String: Any]])?.first)
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(fire["png"] as? String)))
        XCTAssertEqual(((json["summary"] as? [String: Any])?["holds"] as? [String: Any])?["count"] as? Int, 1)
    }
}

import Foundation
import TestFixtures
import TestSupport
import XCTest

/// `run:` and `post:` from a watch, end to end: the fire, then the command's and the post's own
/// events, which a stop waits for (up to 5 s) so that they reach the log.
final class OutboundWatchTests: XCTestCase {
    func testAFiresCommandAndPostAreLoggedEvenWhenTheRunStopsFirst() throws {
        let dir = try Fixtures.scratch()
        let server = try PostServer()
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes\\n2. Yes", "1. No\\n2. No"], in: dir)
        let log = dir.appendingPathComponent("events.jsonl").path
        // The command outlasts the run (--seconds 0.5): the stop waits for it.
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a test card=run:/bin/sleep 1|a cat=post:\(server.url("/ok"))", "--model",
                "script:" + script, "--photo-seconds", "0", "--no-sound", "--record", dir.path, "--log", log, "--seconds", "0.5",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let events = try EventLogFile.read(log)
        let command = try XCTUnwrap(events.first { $0["event"] as? String == "command" })
        XCTAssertEqual(command["argv"] as? [String], ["/bin/sleep", "1"])
        XCTAssertEqual(command["exit"] as? Int, 0)
        XCTAssertEqual(command["performed"] as? Bool, true)
        let post = try XCTUnwrap(events.first { $0["event"] as? String == "post" })
        XCTAssertEqual(post["status"] as? Int, 200)
        XCTAssertEqual(post["condition"] as? String, "a cat")
        XCTAssertEqual(server.requests.count, 1)
        XCTAssertTrue(r.stderr.contains("run: a test card: /bin/sleep exited 0 in "), r.stderr)
    }

    /// A post whose webhook never answers, still waiting when the stop's wait is over: recorded as
    /// such (not lost without a trace), as a command in the same state is recorded as killed.
    func testAPostStillWaitingAtTheStopIsRecordedAsSuch() throws {
        let dir = try Fixtures.scratch()
        let server = try PostServer()
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes"], in: dir)
        let log = dir.appendingPathComponent("events.jsonl").path
        let started = Date()
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a cat=post:\(server.url("/hang"))", "--model", "script:" + script, "--photo-seconds",
                "0", "--no-sound", "--record", dir.path, "--log", log, "--seconds", "0.5",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 20, "the stop waits 5 s for posts, not their 30 s of tries")
        let post = try XCTUnwrap(try EventLogFile.read(log).first { $0["event"] as? String == "post" }, "the post is in the log")
        XCTAssertEqual(post["performed"] as? Bool, false)
        XCTAssertTrue((post["error"] as? String ?? "").contains("still waiting for an answer when lookd stopped"), "\(post)")
        XCTAssertTrue(r.stderr.contains("not known to have arrived"), r.stderr)
    }
}

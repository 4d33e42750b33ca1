import Foundation
import LookCore
import Records
import TestSupport
import XCTest

@testable import Outputs

/// The watchdog says whether the loop is alive, not whether a frame was answered: it pings while
/// the loop is in a declared wait within its bound, and stops when the loop is stuck past it.
final class WatchdogTests: XCTestCase {
    func testLivenessFollowsTheLoopsWaits() {
        var live = LoopLiveness(at: 0)
        XCTAssertTrue(live.isAlive(at: 100, within: 120))
        XCTAssertFalse(live.isAlive(at: 200, within: 120), "no event for 200 s and no wait: stuck")
        live.waiting(LoopWait("the model's answer", atMost: 900), at: 10)
        XCTAssertTrue(live.isAlive(at: 300, within: 120), "a silent server within the question's bound")
        XCTAssertEqual(live.waitNote(at: 300), "waiting for the model's answer (290 s)")
        XCTAssertFalse(live.isAlive(at: 911, within: 120), "past the bound: stuck, so systemd restarts it")
        live.waiting(nil, at: 400)
        XCTAssertNil(live.waitNote(at: 401))
        XCTAssertFalse(live.isAlive(at: 600, within: 120))
    }

    /// The watchdog looks on the run's clock: a wait with a bound gets pings all along; past the
    /// bound, none.
    func testTheServicePingsWhileTheLoopWaitsWithinItsBound() throws {
        let notifier = TickingNotifier(interval: 0.1)
        let dir = try Fixtures.scratch()
        let clock = ManualClock()
        let service = ServiceOutput(
            statusPath: dir.appendingPathComponent("status.json").path, source: "test", eventsPath: nil, notifier: notifier, clock: clock)
        try service.start(events: NoEvents())
        defer { service.stop() }
        func pass(_ seconds: Double) { for _ in 0..<Int((seconds / 0.01).rounded()) { clock.advance(0.01) } }
        pass(1)
        XCTAssertEqual(notifier.pings, 0, "no ping before the loop watches (READY)")
        service.receive(.watching(WatchSnapshot(rows: [], rulesSource: "inline")))
        service.receive(.waiting(LoopWait("the model's answer", atMost: 1.2)))
        pass(1)
        let during = notifier.pings
        XCTAssertGreaterThanOrEqual(during, 18, "a ping each half interval (0.05 s) while the loop waits for a silent server")
        pass(1.5)
        let after = notifier.pings
        pass(0.8)
        XCTAssertEqual(notifier.pings, after, "past the wait's bound (and no event since): no more pings")
        XCTAssertGreaterThan(after, during, "pings went on until the bound")
    }
}

/// A notifier whose manager watches every `interval` seconds, counting its pings.
private final class TickingNotifier: ServiceNotifier, @unchecked Sendable {
    let watchdogInterval: Double?
    private let lock = NSLock()
    private var count = 0
    private var said: [String] = []
    init(interval: Double) { watchdogInterval = interval }
    var pings: Int { lock.withLock { count } }
    var statuses: [String] { lock.withLock { said } }
    func ready(status: String) {}
    func status(_ text: String) { lock.withLock { said.append(text) } }
    func reloading() {}
    func stopping() {}
    func watchdog() { lock.withLock { count += 1 } }
}

private final class NoEvents: EventSink, @unchecked Sendable {
    func emit(_ event: WatchEvent) {}
}

/// A lost camera or stream shows in the status (and so in `lookd status`, the page and
/// `/api/status`), not "watching" over a frozen frame.
final class SourceStateStatusTests: XCTestCase {
    func testALostSourceIsInTheStatusUntilItIsBack() throws {
        let dir = try Fixtures.scratch()
        let path = dir.appendingPathComponent("status.json").path
        let notifier = TickingNotifier(interval: 1000)
        let service = ServiceOutput(statusPath: path, source: "rtsp://cam", eventsPath: nil, notifier: notifier, clock: ManualClock())
        service.receive(.watching(WatchSnapshot(rows: [], rulesSource: "inline")))
        func status() throws -> [String: Any] {
            try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
        }
        XCTAssertEqual(try status()["state"] as? String, "watching")
        service.receive(.live(LiveChange(kind: "stream", device: "rtsp://cam", change: .lost(reason: "connection refused", retry: 2))))
        let lostState = try status()["state"] as? String ?? ""
        XCTAssertTrue(lostState.hasPrefix("stream lost since ") && lostState.hasSuffix(": connection refused"), lostState)
        XCTAssertEqual(try status()["source_up"] as? Bool, false)
        XCTAssertTrue(notifier.statuses.contains("stream lost: connection refused"))
        service.receive(.live(LiveChange(kind: "stream", device: "rtsp://cam", change: .found(width: 4, height: 4, native: "", after: 3))))
        XCTAssertEqual(try status()["state"] as? String, "watching")
        XCTAssertEqual(try status()["source_up"] as? Bool, true)
    }
}

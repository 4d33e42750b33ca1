import Foundation
import Gate
import LookCore
import TestSupport
import XCTest

/// The one model shared by the cameras' loops, on real threads: one camera at a time, the changed
/// camera that waited longest next, a still camera only at its gate-max, and a stop that withdraws.
final class ModelTurnsTests: XCTestCase {
    private final class Order: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        private var holding = 0
        private(set) var overlapped = false
        func enter(_ name: String) {
            lock.withLock {
                names.append(name)
                holding += 1
                if holding > 1 { overlapped = true }
            }
        }
        func leave() { lock.withLock { holding -= 1 } }
        var all: [String] { lock.withLock { names } }
    }

    /// Starts `camera` asking for a turn on a thread; it holds the turn `hold` seconds (real time).
    private func ask(
        _ turns: ModelTurns, _ camera: String, changed: Bool, order: Order, hold: Double = 0.05, within: Double? = nil,
        stopped: @escaping @Sendable () -> Bool = { false }, group: DispatchGroup
    ) {
        group.enter()
        Thread {
            _ = turns.inTurn(camera, changed: changed, within: within, stopped: stopped) {
                order.enter(camera)
                usleep(useconds_t(hold * 1_000_000))
                order.leave()
            }
            group.leave()
        }.start()
    }

    func testAServerWithTwoSlotsHasTwoCamerasAskAtOnceAndAThirdWaits() throws {
        let turns = ModelTurns(clock: ManualClock())
        turns.allow(2)
        for name in ["door", "yard", "drive"] { turns.add(name, maxSeconds: 30) }
        let (order, group) = (Order(), DispatchGroup())
        ask(turns, "door", changed: true, order: order, hold: 1.5, group: group)
        ask(turns, "yard", changed: true, order: order, hold: 1.5, group: group)
        XCTAssertTrue(Poll.until { Set(order.all) == ["door", "yard"] }, "two at once")
        XCTAssertTrue(order.overlapped)
        ask(turns, "drive", changed: true, order: order, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("drive") })
        XCTAssertEqual(order.all.count, 2, "the third waits for a slot")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all.last, "drive")
    }

    func testTheChangedCameraThatWaitedLongestGoesNextAndOnlyOneAsksAtATime() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        for name in ["door", "yard", "drive"] { turns.add(name, maxSeconds: 30) }
        let (order, group) = (Order(), DispatchGroup())
        // The door holds the model while the others' pictures change: the drive's first, then the yard's.
        ask(turns, "door", changed: true, order: order, hold: 0.5, group: group)
        XCTAssertTrue(Poll.until { order.all == ["door"] })
        clock.advance(1)
        ask(turns, "drive", changed: true, order: order, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("drive") })
        clock.advance(1)
        // The yard's change comes a second later: the drive, which has waited longer, goes first.
        ask(turns, "yard", changed: true, order: order, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door", "drive", "yard"])
        XCTAssertFalse(order.overlapped, "one camera at a time with the model")
    }

    func testAStillCameraWaitsForItsGateMaxWhileAChangedOneGoesFirst() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        turns.add("door", maxSeconds: 30)
        turns.add("yard", maxSeconds: 30)
        let (order, group) = (Order(), DispatchGroup())
        // Both were asked once (their first frames).
        ask(turns, "yard", changed: true, order: order, hold: 0, group: group)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        ask(turns, "door", changed: true, order: order, hold: 0, group: group)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        // The yard's picture is still: its frame is not due until 30 s after its last turn.
        clock.advance(10)
        ask(turns, "yard", changed: false, order: order, hold: 0, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        ask(turns, "door", changed: true, order: order, hold: 0, group: group)
        XCTAssertTrue(Poll.until { order.all.count == 3 })
        XCTAssertEqual(order.all.last, "door", "the changed camera goes though the still one asked first")
        XCTAssertTrue(turns.isWaiting("yard"), "the still camera waits for its gate-max")
        clock.advance(25)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["yard", "door", "door", "yard"])
    }

    func testAStopWhileWaitingWithdrawsTheFrameAndLeavesTheTurnFree() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        let (order, group) = (Order(), DispatchGroup())
        let stop = StopSignal(clock: clock)
        ask(turns, "door", changed: true, order: order, hold: 0.4, group: group)
        XCTAssertTrue(Poll.until { order.all == ["door"] })
        ask(turns, "yard", changed: true, order: order, stopped: { stop.isRequested }, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        stop.request("test")
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door"], "the stopped camera never asked")
        XCTAssertFalse(turns.isWaiting("yard"))
        ask(turns, "drive", changed: true, order: order, hold: 0, group: group)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door", "drive"], "the turn was given back")
    }

    func testAFrameThatWaitsTooLongMakesWayForANewerOneAndTheCameraKeepsItsPlaceInLine() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        let (order, group) = (Order(), DispatchGroup())
        ask(turns, "door", changed: true, order: order, hold: 1.5, group: group)
        XCTAssertTrue(Poll.until { order.all == ["door"] })
        // The yard's picture changed; its frame waits at most a frame's time (0.5 s) for the model.
        ask(turns, "yard", changed: true, order: order, within: 0.5, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        clock.advance(1)
        XCTAssertEqual(group.wait(timeout: .now() + 0.5), .timedOut, "the door still holds the model")
        // The yard's loop is away for a newer frame; the drive's change, later, waits meanwhile.
        ask(turns, "drive", changed: true, order: order, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("drive") })
        // The yard is back with its newer frame: its change came first, so it goes first.
        ask(turns, "yard", changed: false, order: order, group: group)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door", "yard", "drive"], "the yard kept its place; the drive went after it")
        XCTAssertFalse(order.overlapped)
    }

    /// The starvation of hardening 6: the camera whose frame made way is away for a newer one when
    /// the turn comes free; the camera just served, back at once, must not pass it.
    func testACameraAwayForANewerFrameKeepsItsClaimOverTheCameraJustServed() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        let (order, group) = (Order(), DispatchGroup())
        ask(turns, "door", changed: true, order: order, hold: 0.6, group: group)
        XCTAssertTrue(Poll.until { order.all == ["door"] })
        ask(turns, "yard", changed: true, order: order, within: 0.25, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        clock.advance(0.5) // the yard's frame makes way: its loop is away for a newer one
        XCTAssertTrue(Poll.until { order.all == ["door"] && turns.isWaiting("yard") })
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success, "the door's turn ended and the yard's ask gave up")
        // The door is back at once with a changed frame: the turn is the yard's, kept for it.
        ask(turns, "door", changed: true, order: order, hold: 0, group: group)
        XCTAssertFalse(Poll.until(within: 0.3) { order.all.count > 1 }, "the camera just served does not pass the one that waits")
        ask(turns, "yard", changed: true, order: order, hold: 0, group: group)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door", "yard", "door"])
    }

    /// A camera that does not come back for its kept turn (its loop stopped, its source was lost)
    /// holds the model no longer than its claim lasts.
    func testAClaimKeptForACameraThatDoesNotComeBackLapses() throws {
        let clock = ManualClock()
        let turns = ModelTurns(clock: clock)
        let (order, group) = (Order(), DispatchGroup())
        ask(turns, "door", changed: true, order: order, hold: 0.4, group: group)
        XCTAssertTrue(Poll.until { order.all == ["door"] })
        ask(turns, "yard", changed: true, order: order, within: 0.25, group: group)
        XCTAssertTrue(Poll.until { turns.isWaiting("yard") })
        clock.advance(0.5)
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        ask(turns, "door", changed: true, order: order, hold: 0, group: group)
        XCTAssertFalse(Poll.until(within: 0.2) { order.all.count > 1 }, "kept for the yard while its claim lasts")
        clock.advance(ModelTurns.claimKept(0.25))
        XCTAssertEqual(group.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(order.all, ["door", "door"], "the claim lapsed and the door went on")
    }
}

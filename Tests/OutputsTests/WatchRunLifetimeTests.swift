import Foundation
import History
import LookCore
import Media
import TestSupport
import Watch
import XCTest

@testable import Outputs

/// A run lets go of what it was given when it ends: its outputs, and what they hold (a test's
/// broker or server, in a daemon a camera's buffers). A cycle through the event stream (the reactor
/// reporting into the stream that tells the reactor of clips; an output keeping the stream it was
/// started with) kept every output alive until the process ended.
final class WatchRunLifetimeTests: XCTestCase {
    /// An object only the run's outputs hold; it must go when the run does.
    private final class Held {}

    func testARunThatEndedHoldsNoneOfItsOutputs() throws {
        let dir = try Fixtures.scratch()
        weak var driver: OnFrame?
        weak var held: Held?
        weak var clips: ClipOutput?
        weak var history: HistoryWriter?
        do {
            var watch = InProcessWatch(rules: "a cat=log", in: dir)
            watch.config.cooldown = 0
            let object = Held()
            let onFrame = OnFrame { _ in _ = object }
            let clipOutput = ClipOutput(
                ClipPlan(
                    folder: dir.appendingPathComponent("clips").path, preRoll: 1, postRoll: 1, keep: (86400, 1 << 30), feedSeconds: 10,
                    feedBudget: 1 << 20),
                feed: ClipFeed(keep: 10, budget: 1 << 20), clock: MonotonicClock())
            let writer = HistoryWriter(path: dir.appendingPathComponent("history.db").path, clock: watch.clock)
            (driver, held, clips, history) = (onFrame, object, clipOutput, writer)
            let ending = try watch.run(answers: ["1. Yes", "1. No", "1. Yes"], frames: 3, outputs: [writer, onFrame, clipOutput])
            XCTAssertEqual(ending.fires, 2)
        }
        // The clip output's thread ends a moment after its stop.
        Poll.until(within: 5, every: 0.01) { clips == nil }
        XCTAssertNil(driver, "the run still holds an output")
        XCTAssertNil(held, "what an output holds outlives the run")
        XCTAssertNil(clips, "the clip output still holds the stream (or the stream it)")
        XCTAssertNil(history, "the history writer still holds the stream (or the stream it)")
    }
}

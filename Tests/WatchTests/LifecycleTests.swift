import Foundation
import LookCore
import Records
import TestSupport
import XCTest

@testable import Watch

/// The run's parts start in order and stop in reverse; a part that cannot start stops the ones
/// before it and no other; a stop over its limit is timed on the run's clock.
final class LifecycleTests: XCTestCase {
    private final class Part: RunPart {
        let name: String
        let stopLimit: Double
        let log: CollectedLines
        let fails: Bool
        let stopTakes: Double
        let clock: ManualClock
        init(_ name: String, log: CollectedLines, clock: ManualClock, fails: Bool = false, stopTakes: Double = 0, limit: Double = 10) {
            (self.name, self.log, self.clock, self.fails, self.stopTakes, stopLimit) = (name, log, clock, fails, stopTakes, limit)
        }
        func start(events: any EventSink) throws(OutputFailure) {
            if fails { throw OutputFailure("\(name) cannot start") }
            log.add("start \(name)")
        }
        func stop() {
            clock.advance(stopTakes)
            log.add("stop \(name)")
        }
    }

    private final class NoSink: EventSink { func emit(_ event: WatchEvent) {} }

    func testPartsStartInOrderAndStopInReverseEachTimed() throws {
        let (log, clock) = (CollectedLines(), ManualClock())
        let parts = [
            Part("records", log: log, clock: clock), Part("mqtt", log: log, clock: clock, stopTakes: 3, limit: 2),
            Part("reactions", log: log, clock: clock),
        ]
        let lifecycle = Lifecycle(parts, clock: clock)
        XCTAssertNil(lifecycle.start(events: NoSink()))
        let took = lifecycle.stop()
        XCTAssertEqual(log.all, ["start records", "start mqtt", "start reactions", "stop reactions", "stop mqtt", "stop records"])
        XCTAssertEqual(took.map(\.name), ["reactions", "mqtt", "records"])
        XCTAssertEqual(took[1].seconds, 3, accuracy: 1e-9, "the stop's seconds on the run's clock (over its 2 s: said in the journal)")
        XCTAssertTrue(lifecycle.stop().isEmpty, "a second stop stops nothing")
    }

    func testAPartThatCannotStartStopsThoseBeforeItOnly() throws {
        let (log, clock) = (CollectedLines(), ManualClock())
        let parts = [
            Part("records", log: log, clock: clock), Part("http", log: log, clock: clock, fails: true), Part("reactions", log: log, clock: clock),
        ]
        let lifecycle = Lifecycle(parts, clock: clock)
        let failed = try XCTUnwrap(lifecycle.start(events: NoSink()))
        XCTAssertEqual(failed.name, "http")
        XCTAssertEqual(failed.failure.description, "http cannot start")
        lifecycle.stop()
        XCTAssertEqual(log.all, ["start records", "stop records"])
    }

    private final class Output: WatchOutput, @unchecked Sendable {
        let name: String
        init(_ name: String) { self.name = name }
        func receive(_ event: WatchEvent) {}
    }
    private final class Ahead: AheadOfTheLog, @unchecked Sendable {
        let name = "history"
        func receive(_ event: WatchEvent) {}
    }

    /// One list of a run's parts gives both orders: they start recorder, state, live source,
    /// outputs, reactor; the history hears each event before the recorder writes its line.
    func testOneListGivesTheOrderThePartsStartInAndTheOrderTheyHearIn() {
        let parts = RunParts(recorder: Output("recorder"), keeper: [Output("state")], outputs: [Output("mqtt"), Ahead()], reactor: Output("reactor"))
        let live = Part("camera", log: CollectedLines(), clock: ManualClock())
        XCTAssertEqual(parts.starting(live: [live]).map(\.name), ["recorder", "state", "camera", "mqtt", "history", "reactor"])
        XCTAssertEqual(parts.starting(live: []).map(\.name), ["recorder", "state", "mqtt", "history", "reactor"])
        XCTAssertEqual(parts.hearing.map(\.name), ["history", "recorder", "state", "mqtt", "reactor"])
    }
}

import Foundation
import LookCore
import Records
import TestSupport
import XCTest

@testable import Outputs

/// What a stop does to work still under way outside the loop.
final class StopTests: XCTestCase {
    /// A command still running when the stop's 5 s are up is killed with its process group (no
    /// orphan left with ppid 1) and recorded as killed at the stop.
    func testACommandStillRunningAtTheStopIsKilledWithItsGroupAndRecorded() throws {
        let marker = "41.\(Int.random(in: 100...999))"
        let watch = try InProcessWatch(
            yaml: "rules:\n  - when: a cat\n    run: [/bin/sh, -c, \"sleep \(marker) & sleep \(marker)\"]\n", clock: MonotonicClock())
        _ = try watch.run(answers: ["1. Yes"], frames: 1, outputs: [])
        let command = try XCTUnwrap(watch.events.first { $0["event"] as? String == "command" })
        XCTAssertEqual(command["killed"] as? Bool, true)
        XCTAssertTrue((command["error"] as? String)?.contains("killed at the stop") == true, "\(command)")
        XCTAssertGreaterThanOrEqual(command["run_s"] as? Double ?? 0, 4, "its time is the whole of it")
        let left = try Subprocess.run("/usr/bin/pgrep", ["-f", "sleep \(marker)"])
        XCTAssertEqual(left.stdout, "", "no process of the command's group is left")
        let names = watch.events.map { $0["event"] as? String }
        XCTAssertLessThan(
            try XCTUnwrap(names.firstIndex(of: "command")), try XCTUnwrap(names.firstIndex(of: "stop")), "recorded before the stop line")
    }
}

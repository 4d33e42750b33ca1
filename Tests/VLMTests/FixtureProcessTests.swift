import Foundation
import TestFixtures
import TestSupport
import XCTest

/// The tests' own programs: one that cannot start throws and is never signalled (before,
/// `LlamaServer`'s deinit called `terminate()` on a process that never ran, which traps: the whole
/// test bundle died with SIGILL and the tests after it silently did not run).
final class FixtureProcessTests: XCTestCase {
    func testAServerWhoseBinaryIsMissingThrowsAndTheBundleGoesOn() throws {
        XCTAssertThrowsError(try LlamaServer(model: Fixtures.model, mmproj: Fixtures.mmproj, binary: "/nonexistent/llama-server"))
        XCTAssertThrowsError(try FixtureProcess("/nonexistent/program", []))
    }

    func testAStoppedProgramIsGoneAndAStopTwiceDoesNothing() throws {
        let sleeper = try FixtureProcess("/bin/sleep", ["30"])
        let pid = sleeper.pid
        XCTAssertEqual(kill(pid, 0), 0, "running")
        sleeper.stop()
        XCTAssertFalse(sleeper.isRunning)
        sleeper.stop()
        XCTAssertNotEqual(kill(pid, 0), 0, "gone and reaped")
    }
}

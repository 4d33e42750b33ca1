import Foundation
import LookCore
import TestSupport
import XCTest

final class LogTests: XCTestCase {
    func testJournalLinesCarryTheirPriority() {
        let lines = CollectedLines()
        let log = Log(threshold: .info, journal: true) { lines.add($0) }
        log.error("camera lost")
        log.info("frame 3")
        log.debug("not shown")
        XCTAssertEqual(lines.all, ["<3>camera lost\n", "<6>frame 3\n"])
    }

    func testTerminalLinesAreReadable() {
        let lines = CollectedLines()
        let log = Log(threshold: .notice, journal: false) { lines.add($0) }
        log.warning("no sound server")
        log.info("hidden at notice")
        XCTAssertEqual(lines.all, ["lookd: no sound server\n"])
    }

    func testLevelNames() {
        XCTAssertEqual(Log.Level(name: "DEBUG"), .debug)
        XCTAssertEqual(Log.Level(name: "warn"), .warning)
        XCTAssertNil(Log.Level(name: "loud"))
    }
}

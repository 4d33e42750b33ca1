import Foundation
import LookCore
import XCTest

final class LogTests: XCTestCase {
    private final class Lines: @unchecked Sendable {
        let lock = NSLock()
        var all: [String] = []
        func add(_ s: String) { lock.withLock { all.append(s) } }
    }

    func testJournalLinesCarryTheirPriority() {
        let lines = Lines()
        let log = Log(threshold: .info, journal: true) { lines.add($0) }
        log.error("camera lost")
        log.info("frame 3")
        log.debug("not shown")
        XCTAssertEqual(lines.all, ["<3>camera lost\n", "<6>frame 3\n"])
    }

    func testTerminalLinesAreReadable() {
        let lines = Lines()
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

import Config
import Foundation
import Settings
import TestSupport
import XCTest

/// A reload reads a regular file only: a FIFO put at the rules path is refused at once, never
/// waited on (it held the loop, and SIGTERM could not end it).
final class ReloadPipeTests: XCTestCase {
    func testAFIFOAtTheRulesPathIsRefusedAtOnce() throws {
        let path = try Fixtures.scratch().appendingPathComponent("rules.yaml").path
        try "rules:\n  - when: a cat\n    log: true\n".write(toFile: path, atomically: true, encoding: .utf8)
        let config = WatchConfig(source: "x.mp4", rules: path)
        XCTAssertEqual(try config.loadRules().0.rules.count, 1)
        unlink(path)
        XCTAssertEqual(mkfifo(path, 0o644), 0)
        let started = Date()
        XCTAssertThrowsError(try config.loadRules()) { XCTAssertTrue("\($0)".contains("a reload reads only a regular file"), "\($0)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5)
    }
}

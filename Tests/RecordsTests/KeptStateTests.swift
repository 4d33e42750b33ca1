import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Records

/// The kept state: bounded when read, one watch's own, and a rule's count survives a run without it.
final class KeptStateTests: XCTestCase {
    func testASecondWatchOnOneStateIsRefusedWithTheHolder() throws {
        let dir = try Fixtures.scratch()
        let state = dir.appendingPathComponent("lookd-state.json").path
        var first: StateLock? = try StateLock(state: state)
        XCTAssertThrowsError(try StateLock(state: state)) { error in
            XCTAssertTrue("\(error)".contains("pid \(getpid())"), "\(error)")
        }
        XCTAssertNotNil(first)
        first = nil
        XCTAssertNoThrow(try StateLock(state: state), "free again once the first is gone")
    }

    func testAHugeStateFileIsNotReadWhole() throws {
        let dir = try Fixtures.scratch()
        let path = dir.appendingPathComponent("lookd-state.json").path
        let handle = try XCTUnwrap(
            FileHandle(
                forWritingAtPath: {
                    FileManager.default.createFile(atPath: path, contents: nil); return path
                }()))
        try handle.truncate(atOffset: UInt64(KeptState.largest) + 10)
        try handle.close()
        XCTAssertEqual(KeptState.load(path), KeptState())
        try "{\"counts\": {\"a cat\": 9223372036854775807}}".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(KeptState.load(path).counts["a cat"], Int.max, "the largest count is read; the next fire keeps it there")
    }
}

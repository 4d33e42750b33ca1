import Foundation
import LookCore
import Rules
import Status
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
        XCTAssertEqual(KeptState.load(path).0, KeptState())
        try "{\"counts\": {\"a cat\": 9223372036854775807}}".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(KeptState.load(path).0.counts["a cat"], Int.max, "the largest count is read; the next fire keeps it there")
    }
}

/// A flood of commands leaves the loop at most one of each kind a rule, the latest.
final class RuleCommandsTests: XCTestCase {
    func testAFloodIsCoalescedToTheLatestPerRule() {
        let commands = RuleCommands()
        for i in 0..<5000 { commands.post(.switchRule(condition: "a cat", on: i % 2 == 0, by: "mqtt")) }
        commands.post(.resetCount(condition: "a cat", by: "mqtt"))
        commands.post(.resetCount(condition: "a cat", by: "mqtt"))
        commands.post(.switchRule(condition: "a dog", on: false, by: "mqtt"))
        XCTAssertEqual(
            commands.take(),
            [
                .switchRule(condition: "a cat", on: false, by: "mqtt"), .resetCount(condition: "a cat", by: "mqtt"),
                .switchRule(condition: "a dog", on: false, by: "mqtt"),
            ])
        XCTAssertEqual(commands.coalesced, 5000)
        XCTAssertEqual(commands.take(), [])
    }
}

/// The state's lock: never truncates what a hard link or a refused second watch finds there, and
/// goes with the run that held it.
final class StateLockFileTests: XCTestCase {
    func testAHardLinkAtTheLockIsRefusedAndItsTargetKept() throws {
        let dir = try Fixtures.scratch()
        let state = dir.appendingPathComponent("lookd-state.json").path
        let target = dir.appendingPathComponent("precious").path
        try "keep me\n".write(toFile: target, atomically: false, encoding: .utf8)
        XCTAssertEqual(link(target, state + ".lock"), 0)
        XCTAssertThrowsError(try StateLock(state: state)) { XCTAssertTrue("\($0)".contains("2 hard links"), "\($0)") }
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "keep me\n")
    }

    func testTheLockFileGoesWithItsHolderAndNotWithARefusedWatch() throws {
        let dir = try Fixtures.scratch()
        let state = dir.appendingPathComponent("lookd-state.json").path
        let first = try StateLock(state: state)
        XCTAssertThrowsError(try StateLock(state: state))
        XCTAssertTrue(FileManager.default.fileExists(atPath: state + ".lock"), "a refused watch leaves the holder's lock in place")
        XCTAssertThrowsError(try StateLock(state: state), "and it still holds")
        first.release()
        XCTAssertFalse(FileManager.default.fileExists(atPath: state + ".lock"), "no lock file left behind")
        XCTAssertNoThrow(try StateLock(state: state))
    }
}

/// The status file is rewritten whole after every frame: a pipe put at its path is refused at once,
/// never written into (a pipe nobody reads would hold every frame).
final class StatusFileAtAPipeTests: XCTestCase {
    func testAPipeAtTheStatusPathIsRefusedAtOnce() throws {
        let fifo = try Fixtures.scratch().appendingPathComponent("status.json").path
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let started = Date()
        let problem = try XCTUnwrap(StatusFile.write(.object([("state", .string("watching"))]), to: fifo, environment: [:]))
        XCTAssertTrue(problem.contains("not a regular file"), problem)
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "no wait for a reader")
    }
}

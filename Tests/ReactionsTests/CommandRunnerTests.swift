import Foundation
import LookCore
import ReactionDomain
import TestSupport
import XCTest

@testable import Reactions

/// `run:` commands: no shell, the fire in the environment and on standard input, a time limit that
/// kills what the command started, output cut at a limit, and a bounded number at once.
final class CommandRunnerTests: XCTestCase {
    private let fire = FireContext(
        fire: 7, rule: 2, condition: "a person at the door", reaction: "run", frame: 41, time: Date(timeIntervalSince1970: 1_800_000_000),
        edge: "appear", confidence: 0.93, snapshot: "/var/lib/lookd/snapshots/fire-1-00007.jpg",
        box: Box(left: 100, top: 200, right: 300, bottom: 400),
        instance: "porch")

    private func command(_ words: [String]) -> Command { Command(arguments: words, executable: words[0]) }

    func testArgumentsPassExactlyAndTheFireArrivesInTheEnvironmentAndOnStandardInput() throws {
        let dir = try Fixtures.scratch()
        let out = dir.appendingPathComponent("out").path
        // The script writes each argument on its own line, the variables, then its standard input.
        let script = """
            for a in "$@"; do printf '[%s]\\n' "$a"; done > "$OUT"
            env | grep '^LOOKD_' | sort >> "$OUT"
            cat >> "$OUT"
            """
        let words = ["/bin/sh", "-c", script, "sh", "two words", "\"quoted\"", "$(touch \(dir.path)/pwned)", "*", ""]
        setenv("OUT", out, 1)
        defer { unsetenv("OUT") }
        let ran = CommandRunner.run(command(words), fire: fire, settings: .init(), clock: MonotonicClock())
        XCTAssertNil(ran.error)
        XCTAssertEqual(ran.exitStatus, 0)
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        XCTAssertEqual(Array(lines.prefix(5)), ["[two words]", "[\"quoted\"]", "[$(touch \(dir.path)/pwned)]", "[*]", "[]"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.path + "/pwned"), "no shell ran the words")
        for expected in [
            "LOOKD_CONDITION=a person at the door", "LOOKD_FIRE=7", "LOOKD_RULE=2", "LOOKD_FRAME=41", "LOOKD_EDGE=appear",
            "LOOKD_SNAPSHOT=/var/lib/lookd/snapshots/fire-1-00007.jpg", "LOOKD_BOX=100,200,300,400", "LOOKD_CONFIDENCE=0.9300",
            "LOOKD_INSTANCE=porch", "LOOKD_TIME=2027-01-15T08:00:00.000Z",
        ] {
            XCTAssertTrue(lines.contains(expected), "\(expected) in \(text)")
        }
        let json = try XCTUnwrap(lines.last(where: { $0.hasPrefix("{") }))
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(object["condition"] as? String, "a person at the door")
        XCTAssertEqual(object["fire"] as? Int, 7)
        XCTAssertEqual(object["box"] as? [Int], [100, 200, 300, 400])
    }

    func testAHangingCommandIsKilledWithWhatItStartedAtTheLimit() throws {
        let dir = try Fixtures.scratch()
        let pidFile = dir.appendingPathComponent("child").path
        // The command starts a child that would outlive it, then hangs.
        let words = ["/bin/sh", "-c", "sleep 60 & echo $! > \(pidFile); echo started; sleep 60"]
        let started = Date()
        let ran = CommandRunner.run(command(words), fire: fire, settings: .init(timeLimit: 0.5), clock: MonotonicClock())
        let took = Date().timeIntervalSince(started)
        XCTAssertTrue(ran.killed)
        XCTAssertEqual(ran.signal, SIGKILL)
        XCTAssertEqual(ran.error, "killed at the time limit of 0.5 s")
        XCTAssertEqual(ran.output, "started\n")
        XCTAssertLessThan(took, 10, "ended near its limit, not with the sleep")
        let child = try XCTUnwrap(Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Gone, or dead and waiting for init to reap it (a zombie, state Z).
        func alive() -> Bool {
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8) else { return false }
            return !stat.split(separator: ")").last!.trimmingCharacters(in: .whitespaces).hasPrefix("Z")
        }
        Poll.until(within: 5) { !alive() }
        XCTAssertFalse(alive(), "the child it started went with it")
    }

    func testAFloodOfOutputIsCutAndAFailureIsNamed() throws {
        let words = ["/bin/sh", "-c", "head -c 1000000 /dev/zero | tr '\\0' x; exit 3"]
        let ran = CommandRunner.run(command(words), fire: fire, settings: .init(outputLimit: 100), clock: MonotonicClock())
        XCTAssertEqual(ran.output, String(repeating: "x", count: 100))
        XCTAssertEqual(ran.outputBytes, 1_000_000, "all of it read, so the command was never stuck on a full pipe")
        XCTAssertTrue(ran.cut)
        XCTAssertEqual(ran.exitStatus, 3)
        XCTAssertEqual(ran.error, "exited with status 3")
        XCTAssertFalse(ran.succeeded)
        let missing = CommandRunner.run(command(["/nonexistent/program"]), fire: fire, settings: .init(), clock: MonotonicClock())
        XCTAssertEqual(missing.error, "/nonexistent/program: No such file or directory")
    }

    func testManyFiresAtOnceAreBoundedQueuedAndDroppedWithACount() throws {
        let runner = CommandRunner(settings: .init(timeLimit: 5, limit: 2, waiting: 1), clock: MonotonicClock())
        let dir = try Fixtures.scratch()
        let gate = dir.appendingPathComponent("go").path
        // Each command waits until the test lets them all go.
        let words = ["/bin/sh", "-c", "while [ ! -e \(gate) ]; do sleep 0.02; done"]
        let done = Collected()
        var accepted = 0
        for i in 1...5 {
            var f = fire
            f.fire = i
            if runner.start(command(words), fire: f, done: { done.add($0) }) { accepted += 1 }
        }
        XCTAssertEqual(accepted, 3, "2 run and 1 waits")
        XCTAssertEqual(runner.dropped, 2)
        // The dropped ones have their one report each, saying why.
        XCTAssertEqual(done.items.map(\.fire).sorted(), [4, 5])
        XCTAssertTrue(done.items.allSatisfy { $0.error?.hasPrefix("dropped: 2 running and 1 waiting") == true }, "\(done.items)")
        _ = FileManager.default.createFile(atPath: gate, contents: nil)
        Poll.until(within: 10) { done.items.count >= 5 }
        XCTAssertEqual(done.items.map(\.fire).sorted(), [1, 2, 3, 4, 5])
        XCTAssertEqual(done.items.filter(\.succeeded).map(\.fire).sorted(), [1, 2, 3])
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var list: [ReactionReport.CommandRan] = []
        func add(_ r: ReactionReport.CommandRan) { lock.withLock { list.append(r) } }
        var items: [ReactionReport.CommandRan] { lock.withLock { list } }
    }
}

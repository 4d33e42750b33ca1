import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// What a service manager is told, kept in order.
final class RecordingNotifier: ServiceNotifier, @unchecked Sendable {
    private let lock = NSLock()
    private var said: [String] = []
    var messages: [String] { lock.withLock { said } }
    private func add(_ s: String) { lock.withLock { said.append(s) } }
    func ready(status: String) { add("READY \(status)") }
    func status(_ text: String) { add("STATUS \(text)") }
    func reloading() { add("RELOADING") }
    func stopping() { add("STOPPING") }
    func watchdog() { add("WATCHDOG") }
    let watchdogInterval: Double?

    init(watchdogInterval: Double? = nil) { self.watchdogInterval = watchdogInterval }
}

/// The service in-process: the real watch with the scripted model on a manual clock, a notifier
/// double and the status file.
final class ServiceOutputTests: XCTestCase {
    func testReadyOnceThenStatusAndWatchdogEachFrameThenStoppingAndAStoppedStatusWithTheRecord() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=count|a dog=log", in: dir)
        let notifier = RecordingNotifier()
        let status = dir.appendingPathComponent("status.json").path
        let service = ServiceOutput(statusPath: status, source: "test frames", eventsPath: watch.log, notifier: notifier, clock: watch.clock)
        var seen: [[String: Any]] = []
        let reader = OnFrame { _ in seen.append(Self.read(status)) }
        let ending = try watch.run(answers: ["1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. Yes"], frames: 3, outputs: [service, reader])
        XCTAssertEqual(ending.reason, "end of source")
        let said = notifier.messages
        XCTAssertEqual(said.first, "READY watching test frames · 2 rules")
        XCTAssertEqual(said.filter { $0.hasPrefix("READY") }.count, 1)
        XCTAssertEqual(said.filter { $0.hasPrefix("STATUS") }.count, 3)
        XCTAssertEqual(said.filter { $0 == "WATCHDOG" }.count, 3)
        XCTAssertEqual(said.last, "STOPPING")
        // The status after each frame, written before the next: its frame, the rules' answers and counts.
        XCTAssertEqual(seen.map { $0["frame"] as? Int }, [1, 2, 3])
        let rules = try XCTUnwrap(seen.last?["rules"] as? [[String: Any]])
        XCTAssertEqual(rules.map { $0["answer"] as? String }, ["yes", "yes"])
        XCTAssertEqual(rules.first?["shown"] as? String, "×2")
        XCTAssertEqual(seen.last?["engine"] as? String, "script · script.txt")
        let last = Self.read(status)
        XCTAssertEqual(last["state"] as? String, "stopped")
        XCTAssertEqual(last["record"] as? String, ending.record)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ending.record))
    }

    func testTheWatchdogIsPingedAtMostTwiceAnIntervalOnTheInjectedClock() throws {
        let dir = try Fixtures.scratch()
        let socket = try NotifySocket(in: dir)
        let clock = ManualClock()
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "4000000"], clock: clock)
        XCTAssertEqual(notifier.watchdogInterval, 2)
        // Every 0.25 s for 4 s: a ping at most every second (half the 2 s interval).
        for _ in 0..<16 {
            notifier.watchdog()
            clock.advance(0.25)
        }
        XCTAssertTrue(socket.waitFor("WATCHDOG=1"))
        usleep(300_000) // the datagrams are all in: they were sent before the first was read
        XCTAssertEqual(socket.messages.filter { $0 == "WATCHDOG=1" }.count, 4)
    }

    private static func read(_ path: String) -> [String: Any] {
        (FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }) ?? [:]
    }

    /// The status's pace of answers: how many came in the last minute, when the last came, and how
    /// old its frame was by then.
    func testTheStatusSaysTheAnswersOfTheLastMinuteAndTheLastOnesAge() {
        var pace = AnswerPace()
        XCTAssertEqual(JSON.object(pace.fields(at: 0)).text(), #"{"last_answer":null,"answer_age_ms":null,"answers_a_minute":0}"#)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        for (t, age) in [(0.0, 2.0), (30, 1.5), (61, 1.25)] { pace.answered(at: t, time: start.addingTimeInterval(t), age: age) }
        XCTAssertEqual(
            JSON.object(pace.fields(at: 61)).text(),
            #"{"last_answer":"\#(Timestamp.text(start.addingTimeInterval(61)))","answer_age_ms":1250,"answers_a_minute":2}"#)
        XCTAssertEqual(JSON.object(pace.fields(at: 125)).text().hasSuffix(#""answers_a_minute":0}"#), true, "a minute without answers")
    }
}

import Foundation
import LookCore
import Media
import Records
import TestFixtures
import TestSupport
import VLM
import Watch
import XCTest

@testable import Outputs

/// An output that sees every event (to act on the run as it goes).
final class EachEvent: WatchOutput, @unchecked Sendable {
    let name = "test"
    private let body: (WatchEvent) -> Void
    init(_ body: @escaping (WatchEvent) -> Void) { self.body = body }
    func receive(_ event: WatchEvent) { body(event) }
}

/// A remote engine's outage in-process, on a manual clock (the loop's backoff of 1, 2, 4, 8, 16 s
/// takes no real time): each failed frame is recorded with its reason, the status says since when
/// the engine fails, five in a row do not end the watch, and frames are answered again after it.
final class RemoteOutageTests: XCTestCase {
    func testAServerOutageIsWaitedOutRecordedAndShownInTheStatus() throws {
        let server = try EngineStandIn()
        try server.answer("ok", text: "1. Yes")
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a test card=log", in: dir)
        var settings = RemoteEngine.Settings(url: server.url, model: "tiny")
        (settings.firstTokenLimit, settings.attempts) = (1, 1)
        let engine = RemoteEngine(settings: settings, clock: MonotonicClock()) { image in
            ([UInt8](try JPEGWriter.encode(image, quality: 3)), "image/jpeg")
        }
        let status = dir.appendingPathComponent("status.json").path
        let service = ServiceOutput(
            statusPath: status, source: "test frames", eventsPath: watch.log, notifier: RecordingNotifier(), clock: watch.clock)
        let stop = StopSignal(clock: MonotonicClock())
        var (answered, failed) = (0, 0)
        var failingStatus: [String: Any]?
        let script = EachEvent { event in
            switch event {
            case .frame:
                answered += 1
                if answered == 3 { try? server.answer("500") }
                if answered == 6 { stop.request("test") }
            case .frameFailed:
                failed += 1
                if failed == 6 {
                    failingStatus = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: status)))) as? [String: Any]
                    try? server.answer("ok")
                }
            default: break
            }
        }
        let ending = try watch.run(engine: engine, frames: 100, outputs: [service, script], stop: stop)
        XCTAssertNil(ending.failure, "six failed frames in a row (five end an in-process model's watch) did not end it")
        XCTAssertEqual(ending.reason, "test")
        XCTAssertEqual(ending.frames, 6)
        let failing = try XCTUnwrap(failingStatus?["failing"] as? [String: Any])
        XCTAssertEqual(failing["since_frame"] as? Int, 4)
        XCTAssertEqual(failing["in_a_row"] as? Int, 6)
        XCTAssertTrue((failing["reason"] as? String)?.contains("HTTP 500: the GPU is on fire") == true, "\(failing)")
        let lines = watch.events.filter { $0["event"] as? String == "frame_failed" }
        XCTAssertEqual(lines.count, 6)
        XCTAssertTrue(lines.allSatisfy { ($0["reason"] as? String)?.contains("HTTP 500: the GPU is on fire") == true }, "\(lines)")
        let log = Log.shared.recent
        XCTAssertEqual(log.filter { $0.contains("the engine's server failed") }.count, 1, "one error line for the outage: \(log)")
        XCTAssertTrue(log.contains { $0.contains("the engine's server answers again after 6 failed frames") }, "\(log)")
        let record = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: ending.record))) as? [String: Any])
        XCTAssertEqual(record["engine"] as? String, "remote · tiny @ 127.0.0.1:\(server.port)")
    }
}

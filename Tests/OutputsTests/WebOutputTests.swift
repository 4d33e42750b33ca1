import Foundation
import HTTP
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// The page in-process over real HTTP: what it serves mid-run is what the watch's events said.
final class WebOutputTests: XCTestCase {
    private func get(_ url: String) -> (status: Int, body: String) {
        var body: [UInt8] = []
        let answer = HTTPRequest(url: url, timeLimit: 5).send(received: {
            body += $0; return true
        })
        return (answer.status, String(decoding: body, as: UTF8.self))
    }

    func testTheStatusFramesAndMetricsServedMidRunFollowTheEvents() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=count|a dog=log", in: dir)
        let port = LoopbackPort.free()
        let outputs = OutputSettings.page(port: port, notifier: RecordingNotifier(), watch: watch)
        var seen: [(status: String, metrics: String, frame: Int)] = []
        let probe = OnFrame { [self] frame in
            guard frame.index == 3 else { return }
            seen.append(
                (
                    get("http://127.0.0.1:\(port)/api/status").body, get("http://127.0.0.1:\(port)/metrics").body,
                    get("http://127.0.0.1:\(port)/frame.jpg").status
                ))
        }
        _ = try watch.run(
            answers: ["1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. Yes", "1. No\\n2. No"], frames: 4, outputs: outputs + [probe])
        let mid = try XCTUnwrap(seen.first)
        let status = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(mid.status.utf8)) as? [String: Any])
        XCTAssertEqual(status["frame"] as? Int, 3)
        XCTAssertEqual(status["fires"] as? Int, 3)
        XCTAssertTrue(mid.metrics.contains("lookd_frames_total{outcome=\"answered\"} 3\n"), mid.metrics)
        XCTAssertTrue(mid.metrics.contains("lookd_fires_total{rule=\"a cat\",reaction=\"count\"} 2\n"), mid.metrics)
        XCTAssertEqual(mid.frame, 200, "the picture of the answered frame")
        XCTAssertEqual(get("http://127.0.0.1:\(port)/api/status").status, 0, "the page stops with the run")
    }

    func testAFiresDescriptionJoinsItOnThePage() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=log+describe", in: dir)
        let port = LoopbackPort.free()
        var fires = ""
        let probe = OnFrame { [self] frame in if frame.index == 2 { fires = get("http://127.0.0.1:\(port)/api/fires").body } }
        _ = try watch.run(
            answers: ["1. Yes", "A cat <b>naps</b> on the mat.", "1. Yes"], frames: 2,
            outputs: OutputSettings.page(port: port, notifier: RecordingNotifier(), watch: watch) + [probe])
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(fires.utf8)) as? [[String: Any]])
        XCTAssertEqual(list.count, 1, "the fire once, its description with it: \(fires)")
        XCTAssertEqual(list.first?["description"] as? String, "A cat <b>naps</b> on the mat.")
    }

    func testAnOutputThatCannotStartEndsTheRunWithItsErrorStopAndDoneLines() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=log", in: dir)
        let port = LoopbackPort.free()
        let first = WebOutput(listen: .init(host: "127.0.0.1", port: port), token: nil, snapshotsDir: nil, clock: MonotonicClock())
        try first.start(events: EventStream([]))
        defer { first.stop() }
        let second = WebOutput(listen: .init(host: "127.0.0.1", port: port), token: nil, snapshotsDir: nil, clock: MonotonicClock())
        let ending = try watch.run(answers: ["1. Yes"], frames: 3, outputs: [second])
        guard case .output(let why)? = ending.failure else { return XCTFail("\(String(describing: ending.failure))") }
        XCTAssertTrue(why.contains("\(port)"), why)
        XCTAssertEqual(ending.frames, 0)
        let lines = watch.events
        XCTAssertEqual(lines.suffix(3).map { $0["event"] as? String }, ["error", "stop", "done"])
        XCTAssertEqual(lines.suffix(3).first?["stage"] as? String, "http")
        XCTAssertEqual(lines.last?["record"] as? String, ending.record)
        XCTAssertTrue(FileManager.default.fileExists(atPath: ending.record), "the record is written all the same")
    }
}

extension OutputSettings {
    /// The service and the page on `port`, as the command line makes them.
    fileprivate static func page(port: Int, notifier: any ServiceNotifier, watch: InProcessWatch) -> [any WatchOutput] {
        var settings = OutputSettings(name: "inproc")
        settings.http = .init(host: "127.0.0.1", port: port)
        settings.statusPath = watch.dir.appendingPathComponent("status.json").path
        return settings.outputs(
            source: "test frames", eventsPath: watch.log, snapshotsDir: nil, notifier: notifier, clock: watch.clock,
            sockets: MonotonicClock())
    }
}

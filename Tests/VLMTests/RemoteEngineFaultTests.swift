import Foundation
import LookCore
import Media
import TestFixtures
import TestSupport
import XCTest

@testable import VLM

/// A value handed from another thread.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// The remote engine against a stand-in server's faults: each is a failed question with its reason,
/// tried again where another try can help, never a crash or a hang past the limits.
final class RemoteEngineFaultTests: XCTestCase {
    private var server: EngineStandIn!
    override func setUpWithError() throws { server = try EngineStandIn() }
    // XCTest keeps every test case object to the end of the run: the server goes with its test.
    override func tearDown() { server = nil }

    private func engine(model: String = "tiny", attempts: Int = 3) -> RemoteEngine {
        var settings = RemoteEngine.Settings(url: server.url, model: model)
        settings.firstTokenLimit = 0.5
        settings.timeLimit = 2
        settings.attempts = attempts
        settings.backoff = 0.05
        return RemoteEngine(settings: settings, clock: MonotonicClock()) { ([UInt8](try JPEGWriter.encode($0)), "image/jpeg") }
    }

    private let picture = TestMedia.halves(width: 64, height: 48, left: (200, 40, 30), right: (30, 60, 200))

    /// The reason the question failed with, or nil when it was answered.
    private func failure(_ engine: RemoteEngine) -> String? {
        do {
            _ = try engine.generate(image: picture, prompt: "1. Is there a cat?", maxTokens: 16)
            return nil
        } catch {
            guard case .remote(let reason) = error as? VLMError else { return "unexpected: \(error)" }
            return reason
        }
    }

    func testAnEndlessStreamIsCutAtTheAnswersTokenBound() throws {
        try server.answer("endless")
        let g = try engine().generate(image: picture, prompt: "1. Is there a cat?", maxTokens: 16)
        XCTAssertEqual(g.stop, .tokenLimit)
        XCTAssertEqual(g.text.split(separator: " ").count, 16, g.text)
    }

    /// Few pieces of 300 KB each are cut by their bytes, not their count: the answer (and what the
    /// records keep of it) is at most 64 KB.
    func testAnAnswerOfHugePiecesIsCutAtItsByteBound() throws {
        try server.answer("huge")
        let g = try engine().generate(image: picture, prompt: "1. Is there a cat?", maxTokens: 64)
        XCTAssertEqual(g.stop, .tokenLimit)
        XCTAssertLessThanOrEqual(g.text.utf8.count, RemoteEngine.answerLimit)
        XCTAssertGreaterThan(g.text.utf8.count, RemoteEngine.answerLimit - 8)
    }

    func testAServerThatDoesNotStreamIsReadAndAWebPageIsNamed() throws {
        try server.answer("whole", text: "1. Yes")
        let g = try engine().generate(image: picture, prompt: "1. Is there a cat?", maxTokens: 16)
        XCTAssertEqual(g.text, "1. Yes")
        XCTAssertEqual(g.stop, .endOfText)
        try server.answer("html")
        let reason = try XCTUnwrap(failure(engine(attempts: 1)))
        XCTAssertTrue(reason.contains("answered with a web page"), reason)
    }

    /// A stop (systemd's SIGTERM) while the server hangs before its first token: the question gives
    /// up and no retry or backoff follows, well within the unit's 90 s stop limit (the limits alone
    /// would take 3 tries of 60 s).
    func testAStopCutsTheWaitForAFirstTokenAndTheRetries() throws {
        try server.answer("hang-first")
        var settings = RemoteEngine.Settings(url: server.url, model: "tiny")
        (settings.firstTokenLimit, settings.attempts, settings.backoff) = (60, 3, 1)
        let engine = RemoteEngine(settings: settings, clock: MonotonicClock()) { ([UInt8](try JPEGWriter.encode($0)), "image/jpeg") }
        let stop = StopSignal(clock: MonotonicClock())
        let asked = DispatchSemaphore(value: 0)
        let result = Box<String>()
        let started = Date()
        Thread.detachNewThread { [picture] in
            do {
                _ = try engine.generate(image: picture, prompt: "1. Is there a cat?", maxTokens: 16, cancellation: stop.cancellation)
                result.value = "answered"
            } catch {
                result.value = "\(error)"
            }
            asked.signal()
        }
        XCTAssertTrue(Poll.until { server.requests == 1 }, "the question is in flight")
        stop.request("SIGTERM")
        XCTAssertEqual(asked.wait(timeout: .now() + 10), .success, "the stop was not waited out")
        XCTAssertLessThan(Date().timeIntervalSince(started), 10)
        XCTAssertTrue(result.value?.contains("lookd is stopping") == true, result.value ?? "")
        XCTAssertEqual(server.requests, 1, "no retry after the stop")
    }

    func testAnAnswerStreamsAndIsRead() throws {
        try server.answer("ok", text: "1. Yes\\n2. No")
        let g = try engine().generate(image: picture, prompt: "two rules", maxTokens: 16)
        XCTAssertEqual(g.text, "1. Yes\n2. No")
        XCTAssertEqual(g.stop, .endOfText)
        XCTAssertEqual(g.timings.inputTokens, 100)
        XCTAssertEqual(server.requests, 1)
    }

    func testEachFaultIsAReasonAndIsTriedAgainWhereThatHelps() throws {
        let cases: [(mode: String, reason: String, tries: Int)] = [
            ("500", "HTTP 500: the GPU is on fire (after 3 tries)", 3),
            ("hang-first", "no first token within 0.5 s (after 3 tries)", 3),
            ("close", "Server returned nothing (no headers, no data) (after 3 tries)", 3),
            ("garbage", "the server sent something that is not JSON: {this is not json (after 3 tries)", 3),
            // Text already streamed is not taken back: a break mid-answer fails at once.
            ("hang-mid", "Timeout was reached", 1),
        ]
        for c in cases {
            try server.answer(c.mode)
            try server.resetCount()
            let started = Date()
            XCTAssertEqual(failure(engine()), c.reason, c.mode)
            XCTAssertEqual(server.requests, c.tries, c.mode)
            XCTAssertLessThan(Date().timeIntervalSince(started), 15, "\(c.mode): within its limits")
        }
        // A wrong model name gets the same 404 each time: asked once.
        try server.answer("ok")
        try server.resetCount()
        XCTAssertEqual(failure(engine(model: "huge")), "HTTP 404: model 'huge' not found")
        XCTAssertEqual(server.requests, 1)
        // Nothing listening.
        var settings = RemoteEngine.Settings(url: "http://127.0.0.1:\(LoopbackPort.free())/v1", model: "tiny")
        settings.attempts = 1
        XCTAssertEqual(
            failure(RemoteEngine(settings: settings, clock: MonotonicClock()) { ([UInt8](try JPEGWriter.encode($0)), "image/jpeg") }),
            "Couldn't connect to server")
    }

    /// A URL with a query (`…/v1?api-version=1`): the path goes before the query.
    func testTheEndpointKeepsTheQueryAfterThePath() {
        XCTAssertEqual(
            RemoteEngine.Settings(url: "http://h/v1?api-version=1", model: "m").endpoint("chat/completions"),
            "http://h/v1/chat/completions?api-version=1")
        XCTAssertEqual(RemoteEngine.Settings(url: "http://h/v1/", model: "m").endpoint("chat/completions"), "http://h/v1/chat/completions")
    }
}

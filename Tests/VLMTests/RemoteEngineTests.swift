import Foundation
import LookCore
import Media
import TestFixtures
import TestSupport
import XCTest

@testable import VLM

/// The remote engine against the pinned llama.cpp's own llama-server (tools/build-llama-tools),
/// started on loopback with the tiny fixture pair: the same frame and prompt give the same answer
/// text through the server as in-process (greedy, the same model).
final class RemoteEngineTests: XCTestCase {
    func testTheServerAnswersAsTheInProcessEngineDoes() throws {
        let server = try LlamaServer(model: Fixtures.model, mmproj: Fixtures.mmproj)
        let image = TestMedia.halves(width: 448, height: 252, left: (200, 40, 30), right: (30, 60, 200))
        let prompt = "Answer each question with Yes or No.\n1. Is there a chessboard?\n2. Is there a lighthouse?"
        let local = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, clock: MonotonicClock())
        let here = try local.generate(image: image, prompt: prompt, maxTokens: 16)
        // PNG: the same pixels on both sides (JPEG would change them, and a random model's answer with them).
        let remote = RemoteEngine(settings: .init(url: server.url, model: "tiny"), clock: MonotonicClock()) {
            ([UInt8](try PNGWriter.encode($0)), "image/png")
        }
        var streamed = ""
        let there = try remote.generate(image: image, prompt: prompt, maxTokens: 16) { streamed += $0 }
        XCTAssertFalse(here.text.isEmpty)
        // At the token limit a character can be cut in two: lookd writes it as U+FFFD, llama-server
        // leaves its bytes out. Past that, the texts are the same.
        func whole(_ text: String) -> String { String(text.reversed().drop { $0 == "\u{FFFD}" }.reversed()) }
        XCTAssertEqual(whole(there.text), whole(here.text))
        XCTAssertGreaterThan(whole(here.text).count, 20)
        XCTAssertEqual(streamed, there.text, "streamed piece by piece")
        XCTAssertEqual(there.timings.outputTokens, here.timings.outputTokens)
        XCTAssertNotNil(there.timings.firstToken)
        XCTAssertEqual(remote.engineName, "remote · tiny @ 127.0.0.1:\(server.port)")
    }
}

import Foundation
import LookCore
import TestSupport
import VLM
import XCTest

/// The real llama.cpp engine on the tiny random-weight MiniCPM-V pair (Tests/Fixtures/models).
/// Its answers are gibberish, but deterministic: greedy decoding of fixed weights.
final class LlamaEngineTests: XCTestCase {
    nonisolated(unsafe) private static var shared: LlamaEngine?

    private func engine() throws -> LlamaEngine {
        if let e = Self.shared { return e }
        let e = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, clock: MonotonicClock())
        Self.shared = e
        return e
    }

    private let photo = TestMedia.halves(width: 320, height: 240, left: (200, 40, 40), right: (40, 40, 200))
    private let other = RGBImage(width: 256, height: 256, fill: (20, 180, 20))

    func testLoadsAndAnswersAboutAPicture() throws {
        let e = try engine()
        XCTAssertTrue(e.engineName.contains("tiny-minicpmv-Q8_0.gguf"))
        var pieces: [String] = []
        let g = try e.generate(image: photo, prompt: "What is in this picture?", maxTokens: 24) { pieces.append($0) }
        XCTAssertFalse(g.text.isEmpty)
        XCTAssertEqual(pieces.joined(), g.text, "the streamed pieces are the answer")
        XCTAssertGreaterThan(pieces.count, 1, "the answer streams in pieces")
        XCTAssertTrue(g.stop == .tokenLimit || g.stop == .endOfText)
        let t = g.timings
        XCTAssertLessThanOrEqual(t.outputTokens, 24)
        XCTAssertGreaterThan(t.outputTokens, 0)
        let first = try XCTUnwrap(t.firstToken)
        XCTAssertGreaterThan(first, 0)
        XCTAssertLessThanOrEqual(first, t.total)
        XCTAssertGreaterThan(t.imageEncode, 0, "this call encoded the picture")
        XCTAssertLessThanOrEqual(t.imageEncode, first)
        // The prompt is the chat's opening, the picture's tokens (64 per 448 px slice at 16× downsampling,
        // plus their frame tokens) and the question.
        XCTAssertGreaterThan(t.inputTokens, 64)
        if t.outputTokens > 1 { XCTAssertNotNil(t.tokensPerSecond) }
    }

    func testGreedyAndNoHistoryBetweenCalls() throws {
        let e = try engine()
        let a1 = try e.generate(image: photo, prompt: "Describe it.", maxTokens: 16).text
        let b = try e.generate(image: other, prompt: "Something else entirely?", maxTokens: 16).text
        let a2 = try e.generate(image: photo, prompt: "Describe it.", maxTokens: 16).text
        XCTAssertEqual(a1, a2, "the same picture and prompt give the same answer after another question")
        XCTAssertNotEqual(a1, b)
    }

    /// One engine, several cameras (issue 71): two threads asking at once about their own pictures
    /// get the answers each gets alone; the engine takes one question at a time, and nothing of one
    /// camera's question is left in the other's.
    func testTwoThreadsAskingAtOnceGetTheAnswersEachGetsAlone() throws {
        let e = try engine()
        let pictures = [photo, other]
        let alone = try pictures.map { try e.generate(image: $0, prompt: "Describe it.", maxTokens: 12).text }
        let answers = CollectedLines() // "camera\tanswer"
        let group = DispatchGroup()
        for (camera, picture) in pictures.enumerated() {
            for _ in 0..<3 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    if let text = try? e.generate(image: picture, prompt: "Describe it.", maxTokens: 12).text { answers.add("\(camera)\t\(text)") }
                }
            }
        }
        XCTAssertEqual(group.wait(timeout: .now() + 120), .success)
        XCTAssertEqual(
            answers.all.sorted(), ["0\t\(alone[0])", "0\t\(alone[0])", "0\t\(alone[0])", "1\t\(alone[1])", "1\t\(alone[1])", "1\t\(alone[1])"])
        XCTAssertNotEqual(alone[0], alone[1], "the two pictures are told apart")
    }

    func testAnEncodedPictureAnswersMoreQuestionsWithoutEncodingAgain() throws {
        let e = try engine()
        let encoded = try e.encode(photo)
        XCTAssertGreaterThan(encoded.encodeSeconds, 0)
        XCTAssertGreaterThan(encoded.tokenCount, 64)
        let reused1 = try e.generate(image: encoded, prompt: "Is there a chessboard?", maxTokens: 12, cancellation: nil) { _ in }
        let reused2 = try e.generate(image: encoded, prompt: "Detect the red half in the picture.", maxTokens: 12, cancellation: nil) { _ in }
        XCTAssertEqual(reused1.timings.imageEncode, 0)
        XCTAssertEqual(reused2.timings.imageEncode, 0)
        let fresh1 = try e.generate(image: photo, prompt: "Is there a chessboard?", maxTokens: 12)
        let fresh2 = try e.generate(image: photo, prompt: "Detect the red half in the picture.", maxTokens: 12)
        XCTAssertEqual(reused1.text, fresh1.text)
        XCTAssertEqual(reused2.text, fresh2.text)
        XCTAssertEqual(reused1.timings.inputTokens, fresh1.timings.inputTokens)
    }

    func testCancellingStopsAtTheNextToken() throws {
        let e = try engine()
        let cancellation = Cancellation(clock: MonotonicClock())
        var pieces = 0
        let g = try e.generate(image: photo, prompt: "Tell me everything.", maxTokens: 200, cancellation: cancellation) { _ in
            pieces += 1
            if pieces == 3 { cancellation.cancel() }
        }
        XCTAssertEqual(g.stop, .cancelled)
        XCTAssertLessThanOrEqual(g.timings.outputTokens, 4, "at most one token after the cancel")
        XCTAssertFalse(g.text.isEmpty, "the answer so far is kept")

        let early = Cancellation(clock: MonotonicClock())
        early.cancel()
        let none = try e.generate(image: photo, prompt: "Anything?", maxTokens: 50, cancellation: early)
        XCTAssertEqual(none.stop, .cancelled)
        XCTAssertEqual(none.timings.outputTokens, 0)
        XCTAssertEqual(none.text, "")

        // The engine answers normally after a cancelled call.
        let after = try e.generate(image: photo, prompt: "Describe it.", maxTokens: 16)
        XCTAssertEqual(after.text, try e.generate(image: photo, prompt: "Describe it.", maxTokens: 16).text)
    }

    func testTheTokenCapHolds() throws {
        let g = try engine().generate(image: photo, prompt: "Go on and on.", maxTokens: 5)
        XCTAssertLessThanOrEqual(g.timings.outputTokens, 5)
        if g.stop == .tokenLimit { XCTAssertEqual(g.timings.outputTokens, 5) }
    }
}

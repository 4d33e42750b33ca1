import Foundation
import LookCore
import TestSupport
import VLM
import XCTest

final class ScriptedModelTests: XCTestCase {
    private let picture = RGBImage(width: 4, height: 4, fill: (0, 0, 0))

    func testAnswersInOrderThenRepeatsTheLastAndReadsAppendedLines() throws {
        let path = try Fixtures.scratch().appendingPathComponent("script.txt").path
        try "# a comment\n1. No\\n2. Yes\n\n1. Yes\\n2. Yes\n".write(toFile: path, atomically: true, encoding: .utf8)
        let model = try ScriptedModel(path: path, clock: MonotonicClock())
        XCTAssertEqual(model.engineName, "script · script.txt")
        var pieces: [String] = []
        let first = try model.generate(image: picture, prompt: "q", maxTokens: 32) { pieces.append($0) }
        XCTAssertEqual(first.text, "1. No\n2. Yes")
        XCTAssertEqual(pieces.joined(), first.text)
        XCTAssertEqual(pieces.count, first.timings.outputTokens)
        XCTAssertEqual(try model.generate(image: picture, prompt: "q", maxTokens: 32).text, "1. Yes\n2. Yes")
        XCTAssertEqual(try model.generate(image: picture, prompt: "q", maxTokens: 32).text, "1. Yes\n2. Yes", "the last line repeats")
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("1. No\\n2. No\n".utf8))
        handle.closeFile()
        XCTAssertEqual(try model.generate(image: picture, prompt: "q", maxTokens: 32).text, "1. No\n2. No", "an appended line is used")
        XCTAssertEqual(model.questions, 4)
    }

    func testTheTokenCapAndCancelling() throws {
        let path = try Fixtures.scratch().appendingPathComponent("s.txt").path
        try "one two three four five\n".write(toFile: path, atomically: true, encoding: .utf8)
        let model = try ScriptedModel(path: path, clock: MonotonicClock())
        let capped = try model.generate(image: picture, prompt: "q", maxTokens: 2)
        XCTAssertEqual(capped.text, "one two")
        XCTAssertEqual(capped.stop, .tokenLimit)
        let c = Cancellation(clock: MonotonicClock())
        c.cancel()
        XCTAssertEqual(try model.generate(image: picture, prompt: "q", maxTokens: 9, cancellation: c).stop, .cancelled)
        XCTAssertThrowsError(try ScriptedModel(path: "/nonexistent/script.txt", clock: MonotonicClock()))
    }
}

import LookCore
import Records
import Rules
import TestSupport
import XCTest

@testable import Outputs

/// The watch's live line: frames answered, the latest answers, fires, and the median model time of
/// the last frames.
final class TerminalLineTests: XCTestCase {
    func testTheLiveLineSaysFramesAnswersFiresAndTheMedianModelTime() {
        XCTAssertEqual(
            TerminalLine.line(frames: 12, answers: ["yes", "no", "?"], fires: 3, modelTimes: [3.3, 2.9, 3.1]),
            "12 frames · 1. yes 2. no 3. ? · 3 fires · model 3.10 s a frame")
        XCTAssertEqual(TerminalLine.line(frames: 1, answers: ["no"], fires: 1, modelTimes: [0.5]), "1 frame · 1. no · 1 fire · model 0.50 s a frame")
    }

    /// A frame's line comes once the frame is complete (its `frame` event after its `answered` one),
    /// with the fires so far; an end with no outcome before it shows nothing.
    func testALineComesAtEachFramesEnd() {
        let lines = CollectedLines()
        let terminal = TerminalLine(isTerminal: false, every: 1, log: Log(threshold: .notice, journal: false, clearsLine: false) { lines.add($0) })
        func outcome(_ index: Int, _ answer: Answer) -> FrameOutcome {
            FrameOutcome(
                index: index, captureT: Double(index), sourceT: nil, label: nil, size: (448, 252), age: 0, grab: 0, decode: nil, scale: nil,
                prompt: 0, model: 0.5, timings: GenerationTimings(firstToken: 0.1, total: 0.5, imageEncode: 0, inputTokens: 1, outputTokens: 1),
                raw: "1. Yes", answers: [answer], parse: 0, done: 0.5, fired: [], suppressed: [], places: [:], numbers: "", place: "",
                truth: nil, png: nil)
        }
        terminal.receive(.frame(FrameEnd(index: 7, fires: []), shown: nil, WatchSnapshot(rows: [], rulesSource: "inline")))
        terminal.receive(.answered(outcome(1, .yes)))
        XCTAssertEqual(lines.all, [], "not before the frame's end")
        terminal.receive(.frame(FrameEnd(index: 1, fires: []), shown: nil, WatchSnapshot(rows: [], rulesSource: "inline", fires: 1)))
        terminal.receive(.answered(outcome(2, .no)))
        terminal.receive(.frame(FrameEnd(index: 2, fires: []), shown: nil, WatchSnapshot(rows: [], rulesSource: "inline", fires: 1)))
        XCTAssertEqual(lines.all.count, 2, "\(lines.all)")
        XCTAssertTrue(lines.all[0].contains("1 frame · 1. yes · 1 fire · model 0.50 s a frame"), lines.all[0])
        XCTAssertTrue(lines.all[1].contains("2 frames · 1. no · 1 fire"), lines.all[1])
    }

    /// How far through a source of known length: a file's seconds, a folder's photos; nothing for a
    /// live one. Off a terminal a line comes at each tenth as well as every 100 frames.
    func testProgressHasATotalWhereTheSourceHasOne() {
        XCTAssertEqual(TerminalLine.progress(at: 4.2, index: 9, of: (30, nil)), "4.2 of 30.0 s (14 %)")
        XCTAssertEqual(TerminalLine.progress(at: nil, index: 12, of: (nil, 40)), "12 of 40 photos")
        XCTAssertNil(TerminalLine.progress(at: 4.2, index: 9, of: (nil, nil)), "a camera has no end")
        XCTAssertNil(TerminalLine.progress(at: nil, index: 41, of: (nil, 40)), "a folder read again has none either")
        XCTAssertEqual(TerminalLine.tenth(nil, 400, (nil, 40)), 10, "no line a tenth past the end")
        XCTAssertEqual((0...30).map { TerminalLine.tenth(Double($0), $0, (30, nil)) }.filter { $0 > 0 }.count, 28)
        XCTAssertEqual(Set((0...30).map { TerminalLine.tenth(Double($0), $0, (30, nil)) }), Set(0...10))
    }
}

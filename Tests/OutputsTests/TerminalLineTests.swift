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

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
}

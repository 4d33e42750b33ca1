import Grounding
import LookCore
import XCTest

final class BoxParserTests: XCTestCase {
    private let frame = (width: 448, height: 252)

    func testTheSeedsRealAnswers() {
        XCTAssertEqual(
            BoxParser.parse("<ref>water rushing over rows of stones</ref>:<box>238 0 688 998</box>", frame: frame),
            Box(left: 238, top: 0, right: 688, bottom: 998))
        XCTAssertEqual(
            BoxParser.parse("The region matching \"a road bridge crossing over the river\" is<box>588 0 1000 181</box>.", frame: frame),
            Box(left: 588, top: 0, right: 1000, bottom: 181))
        XCTAssertEqual(
            BoxParser.parse("The region matching \"a church with a tall spire\" is<box>505 0 575 308</box>.", frame: frame),
            Box(left: 505, top: 0, right: 575, bottom: 308))
    }

    /// A model may write any number: huge, or past Int's range; the box is held to the frame.
    func testHugeNumbersNeverTrap() {
        for answer in ["<box>1e400 2 3 4</box>", "<box>99999999999999999999999 0 5 5</box>", "<box>-99999999999999999999 0 5e308 5</box>"] {
            guard let box = BoxParser.parse(answer, frame: frame) else { return XCTFail(answer) }
            XCTAssertTrue([box.left, box.top, box.right, box.bottom].allSatisfy { (0...1000).contains($0) }, "\(answer): \(box)")
        }
    }

    func testOtherTagsFractionsPixelsAndOrder() {
        XCTAssertEqual(
            BoxParser.parse("<|box_start|>(100,200),(300,400)<|box_end|>", frame: frame), Box(left: 100, top: 200, right: 300, bottom: 400))
        XCTAssertEqual(BoxParser.parse("<quad>10 20 30 40 50 60 70 80</quad>", frame: frame), Box(left: 10, top: 20, right: 30, bottom: 40))
        XCTAssertNil(BoxParser.parse("<point>120 340</point> and then 1 2 3 4", frame: frame), "a tag with fewer than four numbers: no box")
        XCTAssertEqual(BoxParser.parse("It is at 0.25, 0.1, 0.75, 0.5.", frame: frame), Box(left: 250, top: 100, right: 750, bottom: 500))
        XCTAssertEqual(
            BoxParser.parse("[0, 0, 1, 1]", frame: frame), Box(left: 0, top: 0, right: 1, bottom: 1),
            "integers 0 and 1 are per mille, not fractions")
        XCTAssertEqual(
            BoxParser.parse("<box>1120 63 2240 189</box>", frame: (2240, 252)), Box(left: 500, top: 250, right: 1000, bottom: 750),
            "numbers over 1000 are the frame's pixels")
        XCTAssertEqual(BoxParser.parse("<box>688 998 238 0</box>", frame: frame), Box(left: 238, top: 0, right: 688, bottom: 998))
        XCTAssertEqual(BoxParser.parse("The box: 10 20 30 40 and more 50 60", frame: frame), Box(left: 10, top: 20, right: 30, bottom: 40))
        XCTAssertNil(BoxParser.parse("I cannot see it.", frame: frame))
        XCTAssertNil(BoxParser.parse("<box>1 2 3</box>", frame: frame))
        XCTAssertNil(BoxParser.parse("", frame: frame))
    }

    func testAnyTextGivesABoxOrNoneAndChunkingDoesNotMatter() {
        var rng = SystemRandomNumberGenerator()
        let pieces = [
            "<box>", "</box>", "<|box_start|>", "<|box_end|>", "<point>", "<quad>", " ", ",", ".", "0.", "1", "999",
            "1000", "4096", "-", "(", ")", "ref", "\n", "é", "🚲", "12345678901234567890", "...",
        ]
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0...14, using: &rng)).map { _ in pieces.randomElement(using: &rng)! }.joined()
            let whole = BoxParser.parse(text, frame: frame)
            if let box = whole {
                XCTAssertTrue(box.left <= box.right && box.top <= box.bottom)
                XCTAssertTrue((0...1000).contains(box.left) && (0...1000).contains(box.bottom))
            }
            // Streamed pieces joined back give the same box.
            var joined = ""
            var rest = Substring(text)
            while !rest.isEmpty {
                let n = Int.random(in: 1...5, using: &rng)
                joined += rest.prefix(n)
                rest = rest.dropFirst(n)
            }
            XCTAssertEqual(BoxParser.parse(joined, frame: frame), whole)
        }
    }

    func testCells() {
        XCTAssertEqual(CellParser.number("5"), Cell(5))
        XCTAssertEqual(CellParser.number("Cell 7."), Cell(7))
        XCTAssertNil(CellParser.number("0 or none"))
        XCTAssertEqual(CellParser.words("center; middle"), Cell(5))
        XCTAssertEqual(CellParser.words("center; top"), Cell(2))
        XCTAssertEqual(CellParser.words("Right, bottom."), Cell(9))
        XCTAssertEqual(CellParser.words("left"), Cell(4), "a missing word counts as middle")
        XCTAssertEqual(CellParser.words("top"), Cell(2), "a missing word counts as center")
        XCTAssertNil(CellParser.words("I do not know"))
        XCTAssertEqual(Cell(3)?.box, Box(left: 666, top: 0, right: 1000, bottom: 333))
    }

    func testTheQuestions() {
        XCTAssertEqual(PlaceQuestions.box("a chessboard"), "Detect a chessboard in the picture and output its bounding box.")
        XCTAssertEqual(
            PlaceQuestions.cell("a chessboard"),
            "Which cell of a 3x3 grid (1-9, numbered left to right, top to bottom) contains a chessboard? Answer with the number only.")
        XCTAssertEqual(
            PlaceQuestions.cellWords("a chessboard"),
            "Where in the picture is a chessboard? Answer with two words: left, center or right; then top, middle or bottom.")
    }
}

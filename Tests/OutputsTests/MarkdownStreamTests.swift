import Outputs
import XCTest

final class MarkdownStreamTests: XCTestCase {
    /// Renders `text` fed in pieces of `size` characters; returns (terminal output, shown text).
    private func render(_ text: String, styled: Bool = true, size: Int = 1) -> (String, String) {
        var stream = MarkdownStream(styled: styled)
        var out = ""
        var rest = Substring(text)
        while !rest.isEmpty {
            out += stream.feed(String(rest.prefix(size)))
            rest = rest.dropFirst(size)
        }
        out += stream.finish()
        return (out, stream.shown)
    }

    private let on = "\u{1B}[1m", off = "\u{1B}[22m"

    func testTheSeedsSignAnswerReadsAsOneBoldPhrase() {
        let answer = "**Please  \nKEEP  \nOFF  \nTHE GRASS**"
        for size in 1...6 {
            let (out, shown) = render(answer, size: size)
            XCTAssertEqual(shown, "Please KEEP OFF THE GRASS", "pieces of \(size)")
            XCTAssertEqual(out, "\(on)Please KEEP OFF THE GRASS\(off)", "pieces of \(size)")
        }
    }

    func testHeadingsItemsGapsQuotesAndRules() {
        let answer = "# Chess\nA board\nwith pieces.\n\n- a king\n- a queen\n\n> quoted words\n---\nEnd."
        let expected = "Chess\nA board with pieces.\n\n• a king\n• a queen\n\nquoted words End."
        for size in [1, 2, 3, 7, 100] {
            XCTAssertEqual(render(answer, size: size).1, expected, "pieces of \(size)")
        }
        XCTAssertEqual(render("# Chess\nok").0, "\(on)Chess\(off)\nok")
    }

    func testSingleStarsAndDashesStayAsWritten() {
        XCTAssertEqual(render("2 * 3 = 6").1, "2 * 3 = 6")
        XCTAssertEqual(render("-5 degrees").1, "-5 degrees")
        XCTAssertEqual(render("--verbose").1, "--verbose")
        XCTAssertEqual(render("*").1, "*")
    }

    func testUnstyledOutputHasNoEscapes() {
        let (out, shown) = render("**bold** text", styled: false)
        XCTAssertEqual(out, "bold text")
        XCTAssertEqual(shown, "bold text")
    }

    func testControlCharactersNeverReachTheTerminal() {
        let (out, _) = render("safe\u{1B}[2Jtext\u{07}\u{9B}")
        XCTAssertEqual(out, "safe[2Jtext")
    }

    func testWindowsLineEndsAreLineEnds() {
        XCTAssertEqual(render("one\r\ntwo\r\n\r\n- three").1, "one two\n\n• three")
    }

    func testAnUnclosedBoldIsClosedAtTheEnd() {
        XCTAssertEqual(render("**never closed").0, "\(on)never closed\(off)")
    }
}

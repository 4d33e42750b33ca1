import Grounding
import Rules
import XCTest

/// `--cells batch`: the place asked inside the yes/no prompt, read after each Yes.
final class BatchCellTests: XCTestCase {
    func testBatchCellsAfterEachYes() throws {
        let rules = try InlineRules.parse("a cat=chime|a dog=effect:zoom")
        XCTAssertEqual(
            WatchPrompt.text(for: rules.rules, extra: PlaceQuestions.batch),
            "Answer each question with Yes or No, each answer on its own numbered line.\n"
                + "After a Yes, write the cell of a 3x3 grid (1-9, numbered left to right, top to bottom) that contains it, as in: 1. Yes 5\n"
                + "1. Is there a cat?\n2. Is there a dog?")
        func cells(_ reply: String, _ n: Int = 3) -> [Int?] {
            CellParser.batch(afterYes: AnswerParser.afterYes(reply, ruleCount: n)).map { $0?.number }
        }
        XCTAssertEqual(cells("1. Yes 7\n2. No\n3. Yes, cell 2"), [7, nil, 2])
        XCTAssertEqual(cells("1. No 5\n2. Yes\n3. Yes 0"), [nil, nil, nil], "no yes, no digit, or 0: no cell")
        XCTAssertEqual(cells("**1.** Yes (9)\n9. Yes 4"), [9, nil, nil], "numbers past the rules are ignored")
        XCTAssertEqual(AnswerParser.parse("1. Yes 7\n2. No", ruleCount: 2), [.yes, .no], "the yes/no reading is unchanged")
    }
}

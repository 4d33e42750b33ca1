import Rules
import XCTest

final class PromptAndAnswerTests: XCTestCase {
    func testTheNumberedPrompt() throws {
        let rules = try InlineRules.parse("a chessboard=chime|a lighthouse=say:There is the lighthouse|a sign with words on it=count").rules
        XCTAssertEqual(
            WatchPrompt.text(for: rules),
            """
            Answer each question with Yes or No, each answer on its own numbered line.
            1. Is there a chessboard?
            2. Is there a lighthouse?
            3. Is there a sign with words on it?
            """)
    }

    func testAnswersByLineNumber() {
        XCTAssertEqual(AnswerParser.parse("1. No\n2. No\n3. Yes", ruleCount: 3), [.no, .no, .yes])
        XCTAssertEqual(AnswerParser.parse("3. Yes\n1) no.\n2: YES!", ruleCount: 3), [.no, .yes, .yes])
        XCTAssertEqual(AnswerParser.parse("**1.** Yes\n**2.** No", ruleCount: 2), [.yes, .no])
        XCTAssertEqual(AnswerParser.parse("1. Yes, there is.\n2. Maybe\n", ruleCount: 3), [.yes, .unread, .unread])
        XCTAssertEqual(
            AnswerParser.parse("1. No\n1. Yes\n7. Yes", ruleCount: 2), [.no, .unread],
            "the first answer to a number counts; numbers past the rules are ignored")
        XCTAssertEqual(AnswerParser.parse("Yes\nNo", ruleCount: 2), [.yes, .no], "lines in order when there are no numbers")
        XCTAssertEqual(AnswerParser.parse("", ruleCount: 2), [.unread, .unread])
        XCTAssertEqual(AnswerParser.parse("Nothing I can see.", ruleCount: 1), [.unread])
        XCTAssertEqual(AnswerParser.parse("1. Not sure\n2. Noon", ruleCount: 2), [.unread, .unread], "not and noon are not no")
        XCTAssertEqual(AnswerParser.parse("2024 was a year\n1. yes", ruleCount: 1), [.yes])
    }
}

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
            AnswerParser.parse("1. No\n1. Yes\n7. Yes", ruleCount: 2), [.unread, .unread],
            "two lines for one rule that disagree are ?; numbers past the rules are ignored")
        XCTAssertEqual(AnswerParser.parse("1. No\n1. No.\n2. Yes", ruleCount: 2), [.no, .yes], "a repeated line that agrees stands")
        XCTAssertEqual(AnswerParser.parse("Yes\nNo", ruleCount: 2), [.yes, .no], "lines in order when there are no numbers")
        XCTAssertEqual(AnswerParser.parse("", ruleCount: 2), [.unread, .unread])
        XCTAssertEqual(AnswerParser.parse("Nothing I can see.", ruleCount: 1), [.unread])
        XCTAssertEqual(AnswerParser.parse("1. Not sure\n2. Noon", ruleCount: 2), [.unread, .unread], "not and noon are not no")
        XCTAssertEqual(AnswerParser.parse("2024 was a year\n1. yes", ruleCount: 1), [.yes])
    }

    func testUnnumberedLinesCountOnlyAsOneBareAnswerPerRule() {
        XCTAssertEqual(AnswerParser.parse("Sure!\nYes\nNo", ruleCount: 2), [.unread, .unread], "a preamble shifts nothing")
        XCTAssertEqual(AnswerParser.parse("Yes.\nno", ruleCount: 2), [.yes, .no])
        XCTAssertEqual(AnswerParser.parse("Yes\nNo\nYes", ruleCount: 2), [.unread, .unread], "more lines than rules")
        XCTAssertEqual(AnswerParser.parse("Yes", ruleCount: 2), [.unread, .unread], "fewer lines than rules")
        XCTAssertEqual(AnswerParser.parse("Yes, there is a cat.", ruleCount: 1), [.unread], "a sentence is not a bare answer")
        XCTAssertEqual(AnswerParser.parse("Yes\n2. No", ruleCount: 2), [.unread, .no], "once a line is numbered, only numbers count")
    }

    func testALineThatSaysBothOrHedgesIsUnread() {
        for hedge in [
            "1. Yes/No", "1. Yes or no?", "1. Yes and no", "1. Yes (but actually No)", "1. Yes1. No", "1. No, yes", "1. Yes?",
            "1. Maybe yes", "1. Yes, maybe", "1. Yes, I am not sure", "1. Yes, possibly",
        ] {
            XCTAssertEqual(AnswerParser.parse(hedge, ruleCount: 1), [.unread], hedge)
        }
        XCTAssertEqual(AnswerParser.parse("1. Yes, there is a dog.\n2. No, nothing.", ruleCount: 2), [.yes, .no])
        XCTAssertEqual(AnswerParser.parse("1. No. There is no dog", ruleCount: 1), [.no], "no twice is still no")
        XCTAssertEqual(AnswerParser.parse("1. Yes\r\n2. No\r\n", ruleCount: 2), [.yes, .no], "CRLF line ends")
    }

    /// Reading is total: any text, however broken, gives one answer per rule.
    func testReadingIsTotalOnArbitraryText() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["1", "2", ".", " ", "\n", "\r\n", "Yes", "No", "yes", "?", "*", "_", ")", "9999", "é", "\u{0}", "\u{1B}", "maybe", "-"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...30, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            let rules = Int.random(in: 1...5, using: &generator)
            XCTAssertEqual(AnswerParser.parse(text, ruleCount: rules).count, rules, text.debugDescription)
            XCTAssertEqual(AnswerParser.afterYes(text, ruleCount: rules).count, rules, text.debugDescription)
        }
    }
}

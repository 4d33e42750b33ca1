import LookCore
import Rules
import XCTest

final class InlineRulesTests: XCTestCase {
    func testTheSeedsForms() throws {
        let set = try InlineRules.parse("a chessboard=chime|a lighthouse=say:There is the lighthouse|a sign with words on it=count")
        XCTAssertEqual(set.rules.map(\.condition), ["a chessboard", "a lighthouse", "a sign with words on it"])
        XCTAssertEqual(set.rules.map(\.reaction), [.sound(.chime), .say("There is the lighthouse"), .count])
        let effects = try InlineRules.parse(
            "water rushing over rows of stones=effect:ripple|a road bridge crossing over the river=effect:spotlight/horn|a church with a tall spire=effect:zoom/bells|a dog=timer:2|a van=log|x=glass|y=bell"
        )
        XCTAssertEqual(
            effects.rules.map(\.reaction),
            [
                .effect(.ripple, sound: .water), .effect(.spotlight, sound: .horn),
                .effect(.zoom, sound: .bells), .timer(minutes: 2), .log,
                .sound(.glass), .sound(.bell),
            ])
        XCTAssertEqual(
            effects.rules.map(\.reaction.inlineForm),
            ["effect:ripple", "effect:spotlight/horn", "effect:zoom/bells", "timer:2", "log", "glass", "bell"])
    }

    func testProblemsNameTheRule() {
        func problem(_ s: String) -> String {
            do { _ = try InlineRules.parse(s); return "accepted" } catch { return error.description }
        }
        XCTAssertEqual(problem(""), "--rules: Add a rule first: --rules has no rules.")
        XCTAssertEqual(problem("a cat"), "--rules: rule 1 (\"a cat\"): write condition=reaction, for example \"a chessboard=chime\"")
        XCTAssertEqual(
            problem("a cat=chime|a dog=woof"),
            "--rules: rule 2 (\"a dog=woof\"): unknown reaction \"woof\"; use chime, glass, bell, say:<line>, timer:<minutes>, count, log, effect:<ripple|zoom|spotlight>, run:<program>, post:<URL> or notify:…"
        )
        XCTAssertEqual(problem("=chime"), "--rules: rule 1 (\"=chime\"): a rule needs a condition: when: <what to look for>")
        XCTAssertEqual(problem("a cat=timer:0"), "--rules: rule 1 (\"a cat=timer:0\"): a timer needs a positive number of minutes, not 0")
        XCTAssertEqual(problem("a cat=say:"), "--rules: rule 1 (\"a cat=say:\"): say needs a line to speak")
        XCTAssertEqual(
            problem("a cat=effect:wobble"), "--rules: rule 1 (\"a cat=effect:wobble\"): unknown effect \"wobble\"; use ripple, zoom or spotlight")
        XCTAssertEqual(problem("a cat=say"), "--rules: rule 1 (\"a cat=say\"): say needs a value after a colon, like say:Hello")
    }
}

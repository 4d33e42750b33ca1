import Foundation
import LookCore
import Rules
import TestSupport
import XCTest

final class RulesFileTests: XCTestCase {
    private func problem(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            let set = try RulesFile.parse(yaml, source: "rules.yaml")
            XCTFail("accepted: \(set.rules)", file: file, line: line)
            return ""
        } catch {
            return error.description
        }
    }

    func testTheDesignExample() throws {
        let set = try RulesFile.parse(
            """
            # rules.yaml
            rules:
              - when: a chessboard
                sound: chime
              - when: a lighthouse
                say: There is the lighthouse
              - when: a sign with words on it
                count: true
              - when: water rushing over rows of stones
                effect: ripple
                sound: water
              - when: a kettle
                timer: 4.5
              - when: "a person at the door"
                log: true
              - when: a church with a tall spire
                effect: zoom
            """, source: "rules.yaml")
        XCTAssertEqual(
            set.rules.map(\.condition),
            [
                "a chessboard", "a lighthouse", "a sign with words on it",
                "water rushing over rows of stones", "a kettle",
                "a person at the door", "a church with a tall spire",
            ])
        XCTAssertEqual(
            set.rules.map(\.reaction),
            [
                .sound(.chime), .say("There is the lighthouse"), .count,
                .effect(.ripple, sound: .water), .timer(minutes: 4.5), .log,
                .effect(.zoom, sound: .horn),
            ])
        XCTAssertEqual(set.rules[0].line, 3)
        XCTAssertEqual(set.rules[0].column, 5)
        XCTAssertEqual(set.warnings, [])
    }

    func testTheExampleFileShipsValidWithEveryReaction() throws {
        let set = try RulesFile.load(path: Fixtures.root.appendingPathComponent("rules.example.yaml").path)
        XCTAssertEqual(Set(set.rules.map(\.reaction.kind)), ["sound", "say", "timer", "count", "log", "effect", "run", "post"])
    }

    func testBadFilesSayWhereAndWhat() {
        // The reactions in words, in `ReactionKinds.all`'s order.
        let reactions = "sound, say, timer, count, log, effect, run, post or notify"
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    sound: chime\n   bad: [\n"),
            problem("rules:\n  - when: a cat\n    sound: chime\n   bad: [\n")) // stable
        XCTAssertTrue(problem("rules:\n  - when: a cat\n    sound: [chime\n").hasPrefix("rules.yaml:4:"))
        XCTAssertEqual(problem(""), "rules.yaml: Add a rule first: rules.yaml has no rules.")
        XCTAssertEqual(problem("rules:\n"), "rules.yaml: Add a rule first: rules.yaml has no rules.")
        XCTAssertEqual(problem("rules: []\n"), "rules.yaml: Add a rule first: rules.yaml has no rules.")
        XCTAssertEqual(
            problem("rules:\n  - sound: chime\n"),
            "rules.yaml:2:5: a rule needs a condition: when: <what to look for>")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n"),
            "rules.yaml:2:5: the rule \"a cat\" has no reaction; add one of \(reactions)")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    sound: chime\n    say: Hello\n"),
            "rules.yaml:4:5: a rule has exactly one reaction; this one has sound and say")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    beep: loud\n"),
            "rules.yaml:3:5: unknown key \"beep\"; a rule has when:, one reaction (\(reactions)) and settings (cooldown, confirm, min_confidence, on, when_active, region, enabled, device_class, clip, show_url, describe, cameras)"
        )
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    sound: trumpet\n"),
            "rules.yaml:3:12: unknown sound \"trumpet\"; use chime, glass or bell")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    effect: ripple\n    sound: glass\n"),
            "rules.yaml:4:12: unknown effect sound \"glass\"; use water, horn, bells or chime")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    timer: -2\n"),
            "rules.yaml:3:12: a timer needs a positive number of minutes, not -2")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    timer: soon\n"),
            "rules.yaml:3:12: a timer is a number of minutes, not \"soon\"")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    say: \"  \"\n"),
            "rules.yaml:3:10: say needs a line to speak")
        XCTAssertEqual(
            problem("rules:\n  - when: \(String(repeating: "x", count: 201))\n    log: true\n"),
            "rules.yaml:2:11: the condition is 201 characters; keep it under 200 (a few words work best)")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    count: false\n"),
            "rules.yaml:3:12: count: true is the only setting (count: false would do nothing)")
        XCTAssertEqual(
            problem("rule:\n  - when: a cat\n"),
            "rules.yaml:1:1: unknown key \"rule\"; a rules file has rules: (and settings:, gate:)")
        XCTAssertEqual(
            problem("- when: a cat\n  sound: chime\n"),
            "rules.yaml:1:1: a rules file starts with rules: and a list of rules")
        XCTAssertEqual(
            problem("rules:\n  - &a\n    when: a cat\n"),
            "rules.yaml:2:5: YAML anchors (&name) are not supported in a rules file")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    haptic: true\n"),
            "rules.yaml:3:5: haptic: there is no buzz on Linux; use sound: or say:")
    }

    func testDuplicateConditionsAreAWarningNotAnError() throws {
        let set = try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n  - when: A  Cat\n    count: true\n", source: "r.yaml")
        XCTAssertEqual(set.rules.count, 2)
        XCTAssertEqual(set.warnings, ["r.yaml:4:5: \"A  Cat\" is already a condition (line 2); both rules share one answer"])
    }

    func testAFileThatIsNotText() throws {
        let dir = try Fixtures.scratch()
        let binary = dir.appendingPathComponent("rules.yaml")
        try Data([0x47, 0x47, 0x55, 0x46, 0, 1, 2, 0xFF]).write(to: binary)
        XCTAssertThrowsError(try RulesFile.load(path: binary.path)) { error in
            XCTAssertEqual("\(error)", "\(binary.path): this is not a text file; a rules file is YAML text")
        }
        XCTAssertThrowsError(try RulesFile.load(path: dir.appendingPathComponent("none.yaml").path)) { error in
            XCTAssertTrue("\(error)".hasSuffix("there is no rules file here"))
        }
    }

    func testControlCharactersAreRefusedWhereverTheyAre() {
        XCTAssertEqual(
            problem("rules:\n  - when: \"a cat\\e[31m\"\n    log: true\n"),
            "rules.yaml:2:11: the condition holds the control character U+001B (ESC); write it in plain words")
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    say: \"hello\\a\"\n"),
            "rules.yaml:3:10: the spoken line holds the control character U+0007 (BEL); write it in plain words")
        XCTAssertEqual(
            problem("rules:\n  - when: \"a\\x7Fdog\"\n    log: true\n"),
            "rules.yaml:2:11: the condition holds the control character U+007F (DEL); write it in plain words")
        XCTAssertThrowsError(try InlineRules.parse("a\u{1B}cat=log")) { error in
            XCTAssertEqual(
                "\(error)", "--rules: rule 1 (\"a\\u{1B}cat=log\"): the condition holds the control character U+001B (ESC); write it in plain words")
        }
    }

    func testRulesWrittenTwiceTabsAndBadUTF8AreNamedWithTheirPlace() throws {
        XCTAssertEqual(
            problem("rules:\n  - when: a cat\n    log: true\nrules:\n  - when: a dog\n    log: true\n"),
            "rules.yaml:4:1: rules: is written twice; put every rule in one rules: list")
        XCTAssertTrue(
            problem("rules:\n  - when: a cat\n\tlog: true\n").hasPrefix("rules.yaml:3:1: a tab in the indentation; YAML indents with spaces"),
            problem("rules:\n  - when: a cat\n\tlog: true\n"))
        let dir = try Fixtures.scratch()
        let file = dir.appendingPathComponent("rules.yaml")
        try Data("rules:\n  - when: a café\n    log: true\n  - when: a d".utf8 + [0xC3, 0x28] + Data("og\n    log: true\n".utf8)).write(to: file)
        XCTAssertThrowsError(try RulesFile.load(path: file.path)) { error in
            XCTAssertEqual("\(error)", "\(file.path):4:14: the byte 0xC3 is not UTF-8 text; save the rules file as UTF-8")
        }
    }

    func testTheGateSectionGivesMasksAndBadOnesAreNamed() throws {
        let set = try RulesFile.parse("gate:\n  mask:\n    - [0.8, 0, 1, 0.12]\nrules:\n  - when: a cat\n    log: true\n", source: "r.yaml")
        XCTAssertEqual(set.gateMasks, [GateMask(left: 0.8, top: 0, right: 1, bottom: 0.12)])
        XCTAssertEqual(
            problem("gate:\n  mask:\n    - [0.8, 0, 1]\nrules:\n  - when: a cat\n    log: true\n"),
            "rules.yaml:3:7: a gate mask is four numbers: left, top, right, bottom")
        XCTAssertEqual(
            problem("gate:\n  mask:\n    - [1, 0, 0.5, 0.2]\nrules:\n  - when: a cat\n    log: true\n"),
            "rules.yaml:3:7: a gate mask's left is less than its right, and its top less than its bottom")
        XCTAssertEqual(try GateMask.parse(inline: "0,0,0.5,0.5;0.5,0.5,1,1").count, 2)
        XCTAssertThrowsError(try GateMask.parse(inline: "0,0,2,1")) { error in
            XCTAssertEqual("\(error)", "--gate-mask: \"0,0,2,1\": a gate mask's numbers are fractions of the picture, from 0 to 1")
        }
    }

    /// 30,000 rules read in one pass (the YAML builder once copied each list at every item).
    func testThirtyThousandRulesAreRead() throws {
        let text = "rules:\n" + (0..<30_000).map { "  - when: thing \($0)\n    count: true\n" }.joined()
        let set = try RulesFile.parse(text, source: "big.yaml")
        XCTAssertEqual(set.rules.count, 30_000)
        XCTAssertEqual(set.rules.last?.condition, "thing 29999")
        XCTAssertEqual(set.rules.last?.line, 60_000)
    }

    func testFuzzedInputNeverCrashesTheParser() {
        let good = Array(
            """
            rules:
              - when: a chessboard
                sound: chime
              - when: "a sign: with words"
                effect: spotlight
                sound: horn
              - {when: a kettle, timer: 3}
            """.utf8)
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array("-:{}[]&*!|>'\"#\n\t ,?%@`abc0123456789\u{FEFF}".utf8)
        var accepted = 0
        for _ in 0..<4000 {
            var bytes = good
            for _ in 0..<Int.random(in: 1...6, using: &rng) {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0...2, using: &rng) {
                case 0: bytes[at] = alphabet.randomElement(using: &rng)!
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: at)
                default: bytes.remove(at: at)
                }
            }
            guard let text = String(bytes: bytes, encoding: .utf8) else { continue }
            do {
                let set = try RulesFile.parse(text, source: "fuzz.yaml")
                XCTAssertFalse(set.rules.isEmpty)
                accepted += 1
            } catch {
                XCTAssertFalse(error.problem.isEmpty)
            }
        }
        XCTAssertGreaterThan(accepted, 0)
    }
}

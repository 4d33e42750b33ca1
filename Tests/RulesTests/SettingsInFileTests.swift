import LookCore
import Rules
import XCTest

/// The rules file's `settings:`: each watch setting by its name, one value each, kept with its line.
final class SettingsInFileTests: XCTestCase {
    func testSettingsAreKeptAsWrittenWithTheirLines() throws {
        let set = try RulesFile.parse(
            "settings:\n  source: /dev/video0\n  cooldown: 5\n  no-sound: true\nrules:\n  - when: a cat\n    log: true\n", source: "r.yaml")
        XCTAssertEqual(set.settings["source"], GivenSetting("/dev/video0", from: .file("r.yaml", line: 2)))
        XCTAssertEqual(set.settings["cooldown"], GivenSetting("5", from: .file("r.yaml", line: 3)))
        XCTAssertEqual(set.settings["no-sound"]?.text, "true")
        XCTAssertEqual(set.rules.count, 1)
        XCTAssertEqual(try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n", source: "r.yaml").settings, [:])
    }

    func testABadSettingsMapIsRefusedWithItsLine() {
        let cases = [
            (
                "settings:\n  cooldown: 5\n  cooldown: 6\nrules:\n  - when: a cat\n    log: true\n",
                "r.yaml:3:3: cooldown: is written twice in settings:"
            ),
            ("settings:\n  gate-mask: [1, 2]\nrules:\n  - when: a cat\n    log: true\n", "r.yaml:2:14: gate-mask: takes one value, not a list"),
            ("settings: 5\nrules:\n  - when: a cat\n    log: true\n", "r.yaml:1:11: settings: takes watch settings by name, such as cooldown: 5"),
            ("settings:\n  a: 1\nsettings:\n  b: 2\nrules:\n  - when: a cat\n    log: true\n", "r.yaml:3:1: settings: is written twice"),
        ]
        for (text, expected) in cases {
            XCTAssertThrowsError(try RulesFile.parse(text, source: "r.yaml"), text) { XCTAssertEqual(($0 as? RulesError)?.description, expected) }
        }
    }
}

/// `lookd check`'s lines keep everything a rule says: an effect's sound (its own named too), a
/// post's options (its headers masked), a command's wait, and the file's gate masks.
final class CheckedLinesTests: XCTestCase {
    func testEveryOptionOfARuleIsShown() throws {
        let set = try RulesFile.parse(
            """
            gate:
              mask:
                - [0.8, 0, 1, 0.12]
            rules:
              - when: water
                effect: ripple
              - when: a dog
                post:
                  url: http://127.0.0.1:8123/hook
                  snapshot: true
                  headers:
                    X-Token: hunter2
                  wait: description

            """, source: "r.yaml")
        XCTAssertEqual(
            set.lines,
            [
                "  1. water → effect:ripple/water (its own sound)  (line 5)",
                "  2. a dog → post:http://127.0.0.1:8123/*** (json, with the snapshot, header X-Token: ***, wait: description)  [describe]  (line 7)",
                "  gate: the change gate ignores [0.8,0,1,0.12]",
            ])
    }
}

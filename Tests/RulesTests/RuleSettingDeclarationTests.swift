import Foundation
import LookCore
import Rules
import XCTest

/// Each per-rule setting is declared once (`RuleSettings.declared`): the rules file reads every one,
/// refuses a wrong value with its key first and where it is, and `lookd check`'s summary shows every
/// one that is set, in the declared order.
final class RuleSettingDeclarationTests: XCTestCase {
    /// A value of each declared setting that is not its default, as the file writes it.
    private let good = [
        "cooldown": "60", "confirm": "2 of 3", "min_confidence": "0.8", "on": "both", "when_active": "\"22:00-06:00\"",
        "region": "[0, 0.5, 0.5, 0.5]", "enabled": "false", "device_class": "door", "clip": "false", "show_url": "true", "describe": "true",
        "cameras": "[door, yard]",
    ]

    /// The rule "a cat" of a file where it has `lines` (a second, plain rule keeps the file watchable
    /// when the first is `enabled: false`, which puts it among the disabled).
    private func rule(_ lines: [String]) throws -> Rule {
        let yaml =
            "rules:\n  - when: a cat\n    post: http://127.0.0.1:9/hook\n" + lines.map { "    \($0)\n" }.joined() + "  - when: a dog\n    log: true\n"
        let set = try RulesFile.parse(yaml, source: "rules.yaml")
        return try XCTUnwrap((set.rules + set.disabled).first { $0.condition == "a cat" })
    }

    func testEveryDeclaredSettingIsReadAndShown() throws {
        XCTAssertEqual(Set(good.keys), Set(RuleSettings.fileKeys), "the test covers every declared setting")
        let settings = try rule(RuleSettings.fileKeys.map { "\($0): \(good[$0]!)" }).settings
        XCTAssertEqual(settings.cooldown, 60)
        XCTAssertEqual(settings.confirm, 2)
        XCTAssertEqual(settings.window, 3)
        XCTAssertEqual(settings.minConfidence, 0.8)
        XCTAssertEqual(settings.on, .both)
        XCTAssertNotNil(settings.schedule)
        XCTAssertNotNil(settings.region)
        XCTAssertFalse(settings.enabled)
        XCTAssertEqual(settings.deviceClass, "door")
        XCTAssertFalse(settings.clip)
        XCTAssertTrue(settings.showURL)
        XCTAssertEqual(settings.describe, .standard)
        XCTAssertEqual(settings.cameras, ["door", "yard"])
        let shown = settings.summary.components(separatedBy: " · ")
        XCTAssertEqual(shown.count, RuleSettings.declared.count, "each set setting shows once: \(settings.summary)")
        XCTAssertEqual(
            shown, ["cooldown 60 s", "confirm 2 of 3", "min confidence 0.8", "on both"] + Array(shown[4...]),
            "in the declared order: \(settings.summary)")
        XCTAssertEqual(RuleSettings().summary, "", "the defaults show nothing")
    }

    func testAWrongValueOfEachIsRefusedWithItsKeyAndPlace() throws {
        for declaration in RuleSettings.declared {
            // describe: takes a question of one's own, so only an empty one is wrong; a camera's name has no spaces
            let wrong =
                declaration.key == "cameras" ? "[front door]" : declaration.list ? "[1, 2]" : declaration.key == "describe" ? "\"\"" : "seven"
            do {
                _ = try rule(["\(declaration.key): \(wrong)"])
                XCTFail("\(declaration.key): \(wrong) accepted")
            } catch {
                XCTAssertTrue("\(error)".hasPrefix("rules.yaml:4:"), "\(declaration.key): \("\(error)")")
                XCTAssertTrue("\(error)".contains("\(declaration.key): "), "\(declaration.key): \("\(error)")")
            }
        }
    }
}

import Rules
import XCTest

/// Each rule's own settings in the RuleMachine, alone and together, on exact timelines.
final class RuleSettingsTests: XCTestCase {
    private func settings(_ change: (inout RuleSettings) -> Void) -> RuleSettings {
        var s = RuleSettings()
        change(&s)
        return s
    }

    /// One rule; each step is (time, answer, P(yes)).
    private func run(_ s: RuleSettings, cooldown: Double = 3, _ timeline: [(Double, Answer, Double?)]) -> ([RuleMachine.Outcome], RuleMachine) {
        var machine = RuleMachine(settings: [s], cooldown: cooldown)
        let out = timeline.map { t, a, c in machine.step([a], confidences: c.map { [$0] }, at: t)[0] }
        return (out, machine)
    }

    func testTheDefaultsAreTheDesignsRuleExactly() {
        let timeline: [(Double, Answer, Double?)] = [(0, .yes, nil), (1, .no, nil), (2, .yes, nil), (3, .unread, nil), (4, .no, nil), (9, .yes, nil)]
        var plain = RuleMachine(ruleCount: 1, cooldown: 3)
        let expected = timeline.map { plain.step([$0.1], at: $0.0)[0] }
        XCTAssertEqual(run(RuleSettings(), timeline).0, expected)
        XCTAssertEqual(expected, [.fired, .none, .suppressed, .none, .none, .fired])
    }

    func testARulesOwnCooldownReplacesTheDefault() {
        let timeline: [(Double, Answer, Double?)] = [(0, .yes, nil), (1, .no, nil), (5, .yes, nil), (6, .no, nil), (12, .yes, nil)]
        XCTAssertEqual(run(settings { $0.cooldown = 10 }, timeline).0, [.fired, .none, .suppressed, .none, .fired])
        XCTAssertEqual(run(settings { $0.cooldown = 0 }, cooldown: 100, timeline).0, [.fired, .none, .fired, .none, .fired])
    }

    func testConfirmNeedsNOfTheLastMAnsweredFramesAndHoldsBackTheRest() {
        // 2 of 3: a single yes is held back; the second yes within three answered frames fires. A ? is
        // not an answered frame.
        let s = settings { ($0.confirm, $0.window) = (2, 3) }
        let (out, machine) = run(s, [(0, .yes, nil), (1, .unread, nil), (2, .no, nil), (3, .yes, nil), (4, .yes, nil), (5, .no, nil), (6, .no, nil)])
        XCTAssertEqual(out, [.heldConfirm, .none, .none, .fired, .none, .none, .none])
        XCTAssertEqual(machine.states[0].heldBack, 1)
        XCTAssertEqual(machine.states[0].last, .no, "two noes of the last three turn it back")
        // Flicker: yes, no, yes, no… never two yeses in three answered frames after the first: one fire only when it does.
        let flicker = run(s, [(0, .yes, nil), (1, .no, nil), (2, .no, nil), (3, .yes, nil), (4, .no, nil), (5, .no, nil)]).0
        XCTAssertEqual(flicker, [.heldConfirm, .none, .none, .heldConfirm, .none, .none], "single-frame flicker never fires")
    }

    func testAYesBelowTheMinimumConfidenceCountsAsNoAndIsHeldBack() {
        let s = settings { $0.minConfidence = 0.8 }
        let (out, machine) = run(s, [(0, .yes, 0.6), (1, .yes, 0.9), (2, .yes, 0.7), (9, .yes, 0.95)])
        XCTAssertEqual(out, [.heldConfidence, .fired, .heldConfidence, .fired], "the unsure yes between counts as no: the next sure one fires again")
        XCTAssertEqual(machine.states[0].confidence, 0.95)
        XCTAssertEqual(run(s, [(0, .yes, nil)]).0, [.fired], "with no confidence (free text), the yes stands")
    }

    func testDisappearFiresWhenTheAnswerTurnsFromYesToNo() {
        let s = settings { $0.on = .disappear }
        let (out, machine) = run(s, [(0, .no, nil), (1, .yes, nil), (2, .yes, nil), (3, .no, nil), (4, .no, nil), (10, .yes, nil), (11, .no, nil)])
        XCTAssertEqual(out, [.none, .none, .none, .fired, .none, .none, .fired])
        XCTAssertEqual(machine.states[0].lastEdge, .disappear)
        let both = run(settings { $0.on = .both }, cooldown: 0, [(0, .yes, nil), (1, .no, nil), (2, .yes, nil)]).0
        XCTAssertEqual(both, [.fired, .fired, .fired])
    }

    func testDisappearAfterConfirmationWithItsCooldown() {
        // Leaving must be confirmed too (2 of 2 noes), and a departure inside the cooldown is suppressed.
        let s = settings { ($0.on, $0.confirm, $0.window, $0.cooldown) = (.disappear, 2, 2, 5) }
        let out = run(
            s, [(0, .yes, nil), (1, .yes, nil), (2, .no, nil), (3, .no, nil), (4, .yes, nil), (5, .yes, nil), (6, .no, nil), (7, .no, nil)]
        ).0
        XCTAssertEqual(out, [.heldConfirm, .none, .none, .fired, .heldConfirm, .none, .none, .suppressed])
    }

    func testSettingsAreReadFromTheFileAndCheckedWithTheirPlace() throws {
        let yaml = """
            rules:
              - when: a person
                say: hello
                cooldown: 60
                confirm: 2 of 3
                min_confidence: 0.8
                on: both
              - when: a cat
                count: true
                enabled: false
              - when: a dog
                log: true
            """
        let set = try RulesFile.parse(yaml, source: "r.yaml")
        XCTAssertEqual(set.rules.map(\.condition), ["a person", "a dog"], "a disabled rule is not asked")
        XCTAssertEqual(set.disabled.map(\.condition), ["a cat"])
        XCTAssertEqual(set.rules[0].settings.summary, "cooldown 60 s · confirm 2 of 3 · min confidence 0.8 · on both")
        XCTAssertTrue(set.rules[1].settings.isDefault)
        for (bad, message) in [
            ("confirm: 3 of 2", "r.yaml:4:14: confirm: is \"N of M\" with 1 ≤ N ≤ M ≤ 100 (confirm: 2 of 3), not \"3 of 2\""),
            ("min_confidence: 1.5", "r.yaml:4:21: min_confidence: is a number from 0 to 1, not \"1.5\""),
            ("on: leave", "r.yaml:4:9: on: is appear, disappear or both, not \"leave\""),
            ("cooldown: soon", "r.yaml:4:15: cooldown: is seconds from 0 to 86400, not \"soon\""),
            (
                "device_class: doorbell",
                "r.yaml:4:19: device_class: is one of Home Assistant's binary sensor classes ("
                    + RuleSettings.deviceClasses.joined(separator: ", ") + "), not \"doorbell\""
            ),
        ] {
            XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    \(bad)\n", source: "r.yaml")) { error in
                XCTAssertEqual("\(error)", message)
            }
        }
        let shown = try RulesFile.parse("rules:\n  - when: a door open\n    log: true\n    device_class: Door\n", source: "r.yaml")
        XCTAssertEqual(shown.rules[0].settings.deviceClass, "door")
        XCTAssertEqual(shown.rules[0].settings.summary, "shown as door")
        let region = try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    region: [0.5, 0, 0.5, 1]\n", source: "r.yaml")
        XCTAssertEqual(region.rules[0].settings.region, Region(x: 0.5, y: 0, w: 0.5, h: 1))
        XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    region: [0.5, 0, 0.7, 1]\n", source: "r.yaml")) {
            error in
            XCTAssertTrue("\(error)".hasPrefix("r.yaml:4:13: region: [x, y, w, h] are fractions of the frame"), "\(error)")
        }
        XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    enabled: false\n", source: "r.yaml")) { error in
            XCTAssertTrue("\(error)".contains("every rule is enabled: false"), "\(error)")
        }
    }

    func testAReloadKeepsStateOnlyWhenTheSettingsAreUnchanged() {
        let plain = Rule(condition: "a cat", reaction: .count)
        var changed = plain
        changed.settings.cooldown = 30
        var machine = RuleMachine(settings: [plain.settings])
        _ = machine.step([.yes], at: 0)
        XCTAssertEqual(machine.adopt(from: [plain], to: [plain]), 1)
        XCTAssertEqual(machine.states[0].fires, 1)
        XCTAssertEqual(machine.adopt(from: [plain], to: [changed]), 0)
        XCTAssertEqual(machine.states[0].fires, 0)
        XCTAssertEqual(machine.settings, [changed.settings])
    }
}

/// `when_active:` schedules read on a fixed calendar (UTC).
final class ScheduleTests: XCTestCase {
    private var utc: Calendar {
        var c = Calendar(identifier: .gregorian)
        c.timeZone = TimeZone(identifier: "UTC")!
        return c
    }

    /// 2026-11-30 is a Monday.
    private func at(_ day: Int, _ hour: Int, _ minute: Int = 0) -> Date {
        utc.date(from: DateComponents(year: 2026, month: 11, day: day, hour: hour, minute: minute))!
    }

    private func schedule(_ text: String) throws -> Schedule {
        let set = try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    when_active: \"\(text)\"\n", source: "r.yaml")
        return try XCTUnwrap(set.rules[0].settings.schedule)
    }

    func testRangesDaysAndNightsPastMidnight() throws {
        let night = try schedule("22:00-06:00")
        XCTAssertTrue(night.isActive(at: at(30, 23), calendar: utc))
        XCTAssertTrue(night.isActive(at: at(30, 5, 59), calendar: utc))
        XCTAssertFalse(night.isActive(at: at(30, 6), calendar: utc))
        XCTAssertFalse(night.isActive(at: at(30, 12), calendar: utc))
        let work = try schedule("Mon-Fri 08:00-18:00; Sat,Sun 10:00-12:00")
        XCTAssertTrue(work.isActive(at: at(30, 9), calendar: utc), "Monday 9:00")
        XCTAssertFalse(work.isActive(at: at(29, 9), calendar: utc), "Sunday 9:00")
        XCTAssertTrue(work.isActive(at: at(29, 11), calendar: utc), "Sunday 11:00")
        XCTAssertFalse(work.isActive(at: at(30, 18), calendar: utc), "the end is not in the range")
        // Friday night's range runs into Saturday morning; Sunday night's does not exist.
        let fridays = try schedule("Fri 22:00-02:00")
        XCTAssertTrue(fridays.isActive(at: at(28, 1), calendar: utc), "Saturday 01:00 belongs to Friday night")
        XCTAssertFalse(fridays.isActive(at: at(29, 1), calendar: utc), "Sunday 01:00 does not")
        // Signs, empty ends and odd digits are no times (a leading "-" was read as 1:00 once).
        for bad in [
            "22:00", "25:00-26:00", "Someday 08:00-09:00", "08:00-09:00 Mon", "-1:00-02:00", "01:00--02:00", "+1:00-02:00", "1:0-02:00",
            "01:00-02:00-",
        ] {
            XCTAssertThrowsError(try schedule(bad), bad)
        }
    }

    func testARangeThatStartsWhereItEndsIsRefusedNotReadAsAllDay() throws {
        XCTAssertThrowsError(try schedule("22:00-22:00")) { error in
            XCTAssertTrue("\(error)".contains("starts and ends at the same time"), "\(error)")
        }
    }
}

/// `describe:` as written in a file and inline.
final class DescribeSettingTests: XCTestCase {
    private func setting(_ value: String) throws -> Describe? {
        try RulesFile.parse("rules:\n  - when: a parcel\n    count: true\n    describe: \(value)\n", source: "r.yaml").rules[0].settings.describe
    }

    func testTrueAQuestionFalseAndWhatIsRefused() throws {
        XCTAssertEqual(try setting("true"), .standard)
        XCTAssertEqual(try setting("\"Is anyone carrying something? Say what.\""), .question("Is anyone carrying something? Say what."))
        XCTAssertNil(try setting("false"))
        XCTAssertThrowsError(try setting("\"\(String(repeating: "x", count: 301))\"")) { error in
            XCTAssertTrue("\(error)".contains("at most 300 characters"), "\(error)")
        }
        XCTAssertThrowsError(try setting("\"Say \\e[2J what\"")) { error in XCTAssertTrue("\(error)".contains("control character"), "\(error)") }
        let inline = try InlineRules.parse("a parcel=count+describe|a dog=say:Hello")
        XCTAssertEqual(inline.rules[0].settings.describe, .standard)
        XCTAssertEqual(inline.rules[0].reaction, .count)
        XCTAssertNil(inline.rules[1].settings.describe)
        XCTAssertEqual(inline.rules[0].settings.summary, "describe")
    }
}

/// `show_url: true`: the rule's outbound URL shown whole, by the rule's own choice.
final class ShowURLTests: XCTestCase {
    func testAnOutboundURLIsMaskedUnlessTheRuleSaysShowURL() throws {
        let url = "https://discord.com/api/webhooks/77/tok-en_value"
        let file = "rules:\n  - when: a cat\n    post: \(url)\n  - when: a dog\n    post: \(url)/2\n    show_url: true\n"
        let set = try RulesFile.parse(file, source: "r.yaml")
        XCTAssertEqual(set.rules[0].reaction.shownForm, "post:https://discord.com/***")
        XCTAssertEqual(set.rules[1].reaction.shownForm, "post:\(url)/2")
        XCTAssertTrue(set.rules[1].settings.summary.contains("URL shown"), set.rules[1].settings.summary)
        XCTAssertThrowsError(try RulesFile.parse("rules:\n  - when: a cat\n    log: true\n    show_url: maybe\n", source: "r.yaml")) {
            XCTAssertTrue("\($0)".contains("show_url: is true or false"), "\($0)")
        }
    }
}

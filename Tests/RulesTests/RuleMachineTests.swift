import Rules
import XCTest

final class RuleMachineTests: XCTestCase {
    private func run(_ timeline: [(Double, [Answer])], rules: Int = 1, cooldown: Double = 3) -> [[RuleMachine.Outcome]] {
        var machine = RuleMachine(ruleCount: rules, cooldown: cooldown)
        return timeline.map { machine.step($0.1, at: $0.0) }
    }

    func testAThingThatStaysInViewFiresOnce() {
        let out = run([(0, [.yes]), (1.4, [.yes]), (2.8, [.yes]), (10, [.yes])])
        XCTAssertEqual(out.map { $0[0] }, [.fired, .none, .none, .none])
    }

    func testOneThatLeavesAndComesBackFiresAgain() {
        let out = run([(0, [.yes]), (1.4, [.no]), (4.2, [.yes]), (5.6, [.no]), (7.3, [.yes])])
        XCTAssertEqual(out.map { $0[0] }, [.fired, .none, .fired, .none, .fired])
    }

    func testAYesWithinTheCooldownIsSuppressedAndDoesNotFireLater() {
        var machine = RuleMachine(ruleCount: 1)
        XCTAssertEqual(machine.step([.yes], at: 0), [.fired])
        XCTAssertEqual(machine.step([.no], at: 1.0), [.none])
        XCTAssertEqual(machine.step([.yes], at: 2.99), [.suppressed])
        XCTAssertEqual(machine.step([.yes], at: 3.5), [.none], "still in view: no late fire")
        XCTAssertEqual(machine.step([.no], at: 4.0), [.none])
        XCTAssertEqual(machine.step([.yes], at: 5.0), [.fired])
        XCTAssertEqual(machine.states[0].fires, 2)
        XCTAssertEqual(machine.states[0].suppressed, 1)
    }

    func testTheCooldownIsExactlyThreeSeconds() {
        XCTAssertEqual(run([(0, [.yes]), (1, [.no]), (3.0, [.yes])]).last, [.fired], "3 s after: fires")
        XCTAssertEqual(run([(0, [.yes]), (1, [.no]), (2.999, [.yes])]).last, [.suppressed])
        XCTAssertEqual(run([(0, [.yes]), (1, [.no]), (1.5, [.yes])], cooldown: 1).last, [.fired], "--cooldown 1")
    }

    func testAnUnreadAnswerIsNeitherYesNorNo() {
        XCTAssertEqual(
            run([(0, [.yes]), (1.4, [.unread]), (2.8, [.yes]), (9, [.yes])]).map { $0[0] }, [.fired, .none, .none, .none],
            "a ? between two yes makes no new rising edge")
        XCTAssertEqual(run([(0, [.no]), (1.4, [.unread]), (2.8, [.yes])]).map { $0[0] }, [.none, .none, .fired])
        XCTAssertEqual(run([(0, [.unread]), (5, [.unread])]).map { $0[0] }, [.none, .none], "? never fires")
    }

    func testTheSeedsPhotosRun() {
        // Example photos, three rules, a photo every 4.5 s and a frame every 1.37 s: sign, object, scene.
        // Rule 1 a chessboard (the object), 2 a lighthouse (the scene), 3 a sign (the sign).
        var machine = RuleMachine(ruleCount: 3)
        var fired = [0, 0, 0]
        let truth: [[Answer]] = [[.no, .no, .yes], [.yes, .no, .no], [.no, .yes, .no]]
        var t = 0.0
        while t < 40 {
            let photo = Int(t / 4.5) % 3
            for (i, outcome) in machine.step(truth[photo], at: t).enumerated() where outcome == .fired { fired[i] += 1 }
            t += 1.37
        }
        // 40 s cover photos 0…8: each photo shown three times, each appearance fires its rule once.
        XCTAssertEqual(fired, [3, 3, 3])
    }

    func testStateCarriesOverForUnchangedRules() throws {
        let old = try InlineRules.parse("a cat=count|a dog=chime").rules
        let new = try InlineRules.parse("a dog=chime|a bird=log|a cat=log").rules
        var machine = RuleMachine(ruleCount: 2)
        _ = machine.step([.yes, .yes], at: 0)
        XCTAssertEqual(machine.adopt(from: old, to: new), 1, "one rule kept its state")
        XCTAssertEqual(machine.states.count, 3)
        XCTAssertEqual(machine.states[0].fires, 1, "a dog=chime is unchanged")
        XCTAssertEqual(machine.states[1], RuleMachine.State(), "a bird is new")
        XCTAssertEqual(machine.states[2], RuleMachine.State(), "a cat changed its reaction")
    }
}

import Capture
import Foundation
import LookCore
import Reactions
import Records
import Rules

/// The rules in force and their states: the rule machine, the rules switched off from outside, those
/// written `enabled: false`, and which were in their schedules on the last frame. It judges each
/// frame's answers, and the commands from outside (Home Assistant's switches and buttons) act on it.
final class RuleBook {
    private(set) var rules: [Rule]
    private(set) var machine: RuleMachine
    /// Where the rules came from (a file's path, or `inline`).
    private(set) var source: String
    /// The rules switched off and written `enabled: false`, and the watch's own switch.
    var switches = RuleSwitches()
    /// The calendar the rules' schedules are read on (tests set UTC).
    var calendar = Calendar.current
    private var wasActive: [Bool] = []
    /// Commands from outside, taken before each frame.
    let commands: RuleCommands

    init(rules: [Rule], source: String, cooldown: Double, commands: RuleCommands) {
        (self.rules, self.source, self.commands) = (rules, source, commands)
        machine = RuleMachine(settings: rules.map(\.settings), cooldown: cooldown)
    }

    /// The rules active at `date` (not switched off, and in their schedules), and whether one has
    /// just become active again: it starts with a fresh state, and needs an answer.
    func active(at date: Date) -> (rules: [Int], woke: Bool) {
        let active = rules.indices.filter {
            switches.asks(rules[$0].condition) && (rules[$0].settings.schedule?.isActive(at: date, calendar: calendar) ?? true)
        }
        var woke = false
        for i in active where wasActive.count == rules.count && !wasActive[i] {
            machine.reset(rule: i)
            woke = true
        }
        wasActive = rules.indices.map { active.contains($0) }
        return (active, woke)
    }

    /// What the rules make of `frame`'s answers; `clock` times it. The cooldown counts in video time
    /// when stepping through a file (a batch run fires the same whatever the machine's speed), on
    /// the run's clock otherwise.
    func judge(_ asked: FrameOutcome.Asked, of frame: Frame, pace: VideoFileSource.Pace, clock: any Clock) -> FrameOutcome.Judged {
        let t0 = clock.now()
        var time = frame.captured
        if case .frames = pace, let t = frame.sourceTime { time = t }
        let outcomes = machine.step(asked.answers, confidences: asked.confidence, at: time)
        var held: [Int: String] = [:]
        for (i, o) in outcomes.enumerated() where o == .heldConfidence || o == .heldConfirm { held[i] = o.rawValue }
        return FrameOutcome.Judged(
            fired: outcomes.indices.filter { outcomes[$0] == .fired }, suppressed: outcomes.indices.filter { outcomes[$0] == .suppressed },
            heldBack: held, seconds: clock.now() - t0)
    }

    /// Takes the rules in force's cooldown and disabled rules (at the start and each reload).
    func take(cooldown: Double, disabled: Set<String>) {
        machine.cooldown = cooldown
        switches.disabled = disabled
    }

    /// Takes new rules: those whose words are unchanged keep their state. Returns how many kept it.
    func adopt(_ newRules: [Rule], source: String) -> Int {
        let kept = machine.adopt(from: rules, to: newRules)
        rules = newRules
        switches.off.formIntersection(newRules.map(\.condition))
        wasActive = [] // the schedules' memory was of the old list
        self.source = source
        return kept
    }

    /// Each rule as the world sees it: its state, what its reaction shows, its count and latest
    /// description, and whether it is switched off or outside its schedule (`inactive`).
    func rows(reactor: any ReactionPerformer, descriptions: [String: String], inactive: [Int]) -> [WatchSnapshot.Row] {
        let states = machine.states
        return rules.enumerated().map { i, rule in
            WatchSnapshot.Row(
                rule: rule, state: i < states.count ? states[i] : RuleMachine.State(), shown: reactor.shown(rule.reaction, condition: rule.condition),
                count: rule.reaction.isCount ? reactor.count(for: rule.condition) : nil, description: descriptions[rule.condition],
                switchedOff: switches.off.contains(rule.condition), inactive: inactive.contains(i))
        }
    }

    /// Takes the commands that came since the last frame: each one's outcome, refused or not.
    func takeCommands(reactor: any ReactionPerformer) -> [CommandOutcome] { commands.take().map { obey($0, reactor: reactor) } }

    /// A command from outside, taken before a frame. A rule switched off leaves the prompt (it is
    /// neither asked nor fired) until it is switched on again, when it starts with a fresh state; so
    /// does every rule of a watch paused.
    private func obey(_ command: RuleCommand, reactor: any ReactionPerformer) -> CommandOutcome {
        var outcome = CommandOutcome(command: command, refused: switches.obey(command, inForce: rules.map(\.condition), source: source))
        if case .resetCount(let condition, _) = command, outcome.refused == nil {
            if rules.first(where: { $0.condition == condition })?.reaction.isCount != true {
                outcome.refused = "\"\(condition)\" is not a count rule"
            } else {
                reactor.setCount(0, for: condition)
            }
        }
        if let refused = outcome.refused {
            Log.shared.warning("command ignored: \(refused)")
        } else {
            // Every command obeyed has its journal line, as a fire has (who paused the camera, and when).
            switch command {
            case .watch(let on, let by):
                Log.shared.notice(on ? "watching again (resumed by \(by))" : "paused by \(by): no rule is asked until resumed")
            case .switchRule(let condition, let on, let by): Log.shared.notice("\"\(condition)\" switched \(on ? "on" : "off") by \(by)")
            case .resetCount(let condition, let by): Log.shared.notice("\"\(condition)\": its count reset by \(by)")
            }
        }
        return outcome
    }
}

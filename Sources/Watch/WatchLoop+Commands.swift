import LookCore
import Records
import Rules

extension WatchLoop {
    /// Before each frame: takes the commands that came from outside (Home Assistant's switches and
    /// buttons). A rule switched off leaves the prompt (it is neither asked nor fired) until it is
    /// switched on again, when it starts with a fresh state. Each command is an event, refused or not.
    func takeCommands() {
        for command in commands.take() {
            var outcome = CommandOutcome(command: command)
            switch command {
            case .switchRule(let condition, let on, _):
                if let refused = refusal(condition) {
                    outcome.refused = refused
                } else if on {
                    switchedOff.remove(condition)
                } else {
                    switchedOff.insert(condition)
                }
            case .resetCount(let condition, _):
                if let refused = refusal(condition) {
                    outcome.refused = refused
                } else if rules.first(where: { $0.condition == condition })?.reaction.isCount != true {
                    outcome.refused = "\"\(condition)\" is not a count rule"
                } else {
                    reactor.setCount(0, for: condition)
                }
            }
            if let refused = outcome.refused { Log.shared.warning("command ignored: \(refused)") }
            events.emit(.command(outcome, snapshot))
        }
    }

    /// Why a command cannot act on the rule `condition`: it is not in force (written
    /// `enabled: false`, which only the rules file can turn on, or not in the file at all).
    private func refusal(_ condition: String) -> String? {
        if rules.contains(where: { $0.condition == condition }) { return nil }
        if disabledRules.contains(condition) {
            return "\"\(condition)\" is written enabled: false in \(rulesSource); edit the file and reload to turn it on"
        }
        return "no rule \"\(condition)\" is in force"
    }
}

/// The switches outside the rules file: the rules switched off (by their words), those written
/// `enabled: false` (which only the file can turn on), and the watch's own switch, whose off pauses
/// the watch (a camera of several: no rule of it is asked, and it takes no turn with the model).
/// Home Assistant's switches act on them through `RuleCommand`s.
public struct RuleSwitches: Equatable, Sendable {
    public var off: Set<String> = []
    public var disabled: Set<String> = []
    public var paused = false

    public init(off: Set<String> = [], paused: Bool = false) { (self.off, self.paused) = (off, paused) }

    /// Whether the rule `condition` is asked: the watch is on, and the rule is not switched off.
    public func asks(_ condition: String) -> Bool { !paused && !off.contains(condition) }

    /// Acts on `command` for the rules `inForce` (read from `source`); why it cannot, or nil. A
    /// reset is only judged here: the count is the reactions'.
    public mutating func obey(_ command: RuleCommand, inForce: [String], source: String) -> String? {
        switch command {
        case .watch(let on, _): paused = !on
        case .switchRule(let condition, let on, _):
            if let refused = CommandOutcome.refusal(condition, inForce: inForce, disabled: disabled, source: source) { return refused }
            if on { off.remove(condition) } else { off.insert(condition) }
        case .resetCount(let condition, _): return CommandOutcome.refusal(condition, inForce: inForce, disabled: disabled, source: source)
        }
        return nil
    }
}

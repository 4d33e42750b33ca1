import LookCore

/// Decides which rules fire on a frame: a rule fires when its answer is yes now, was not yes before,
/// and it has not fired in the last `cooldown` seconds. A `?` changes nothing: it is neither yes nor
/// no for the edge. A yes held back by the cooldown is suppressed, and leaves the rule at yes (it
/// does not fire later while the thing stays in view).
public struct RuleMachine: Sendable {
    public struct State: Sendable, Equatable {
        /// The last readable answer (nil before the first).
        public var last: Answer?
        /// When the rule last fired (frame time, seconds).
        public var lastFire: Double?
        public var fires = 0
        public var suppressed = 0

        public init() {}
    }

    public enum Outcome: String, Sendable, Equatable {
        case fired, suppressed, none
    }

    public let cooldown: Double
    public private(set) var states: [State]

    public init(ruleCount: Int, cooldown: Double = 3) {
        self.cooldown = cooldown
        self.states = Array(repeating: State(), count: ruleCount)
    }

    /// Takes a frame's answers at frame time `time` (seconds on any monotonic clock); one outcome per rule.
    public mutating func step(_ answers: [Answer], at time: Double) -> [Outcome] {
        precondition(answers.count == states.count, "one answer per rule")
        return answers.indices.map { i in
            let answer = answers[i]
            guard answer != .unread else { return .none }
            defer { states[i].last = answer }
            guard answer == .yes, states[i].last != .yes else { return .none }
            if let fired = states[i].lastFire, time - fired < cooldown {
                states[i].suppressed += 1
                return .suppressed
            }
            states[i].lastFire = time
            states[i].fires += 1
            return .fired
        }
    }

    /// Carries state over to a new rule list: a rule whose condition and reaction are unchanged keeps
    /// its state; new rules start fresh. Returns how many kept their state.
    @discardableResult
    public mutating func adopt(from old: [Rule], to new: [Rule]) -> Int {
        var adopted: [State] = []
        var kept = 0
        for rule in new {
            if let i = old.firstIndex(where: { $0.condition == rule.condition && $0.reaction == rule.reaction }), i < states.count {
                adopted.append(states[i])
                kept += 1
            } else {
                adopted.append(State())
            }
        }
        states = adopted
        return kept
    }
}

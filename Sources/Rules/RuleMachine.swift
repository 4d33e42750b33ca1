import LookCore

/// Decides which rules fire on a frame. By default (the README's firing rule) a rule fires when its answer is
/// yes now, was not yes before, and it has not fired in the last `cooldown` seconds. A `?` changes
/// nothing: it is neither yes nor no for the edge. A yes held back by the cooldown is suppressed, and
/// leaves the rule at yes (it does not fire later while the thing stays in view).
///
/// Each rule's `RuleSettings` refine this: its own cooldown; a yes below `min_confidence` counts as
/// no (and is held back); the answer turns only when `confirm` of the last `window` answered frames
/// agree (a yes not yet confirmed is held back); `on: disappear` fires when the confirmed answer
/// turns from yes to no, `both` on either turn. A pure state machine on the frames' times.
public struct RuleMachine: Sendable {
    public struct State: Sendable, Equatable {
        /// The confirmed answer (nil before the first).
        public var last: Answer?
        /// When the rule last fired (frame time, seconds).
        public var lastFire: Double?
        public var fires = 0
        public var suppressed = 0
        /// Yeses held back by `confirm` or `min_confidence`.
        public var heldBack = 0
        /// The last answered frames' answers as firing counts them (yes: true), newest last.
        public var recent: [Bool] = []
        /// The latest answer's confidence (P(yes)), when the engine gave one, and the last five.
        public var confidence: Double?
        public var recentConfidences: [Double] = []
        /// The turn of the latest fire: appear or disappear.
        public var lastEdge: RuleSettings.Edge?

        public init() {}
    }

    public enum Outcome: String, Sendable, Equatable {
        case fired, suppressed, none
        /// A yes held back: below `min_confidence`, or not yet confirmed.
        case heldConfidence = "confidence"
        case heldConfirm = "confirm"
    }

    public var cooldown: Double
    public private(set) var states: [State]
    public private(set) var settings: [RuleSettings]

    public init(ruleCount: Int, cooldown: Double = 3) {
        self.init(settings: Array(repeating: RuleSettings(), count: ruleCount), cooldown: cooldown)
    }

    public init(settings: [RuleSettings], cooldown: Double = 3) {
        self.cooldown = cooldown
        self.settings = settings
        self.states = Array(repeating: State(), count: settings.count)
    }

    /// Takes a frame's answers (and their confidences, P(yes), when the engine gave them) at frame
    /// time `time` (seconds on any monotonic clock); one outcome per rule.
    public mutating func step(_ answers: [Answer], confidences: [Double?]? = nil, at time: Double) -> [Outcome] {
        precondition(answers.count == states.count, "one answer per rule")
        return answers.indices.map { i in step(rule: i, answers[i], confidence: confidences?[i] ?? nil, at: time) }
    }

    /// A rule starts over (its schedule made it active again).
    public mutating func reset(rule i: Int) { states[i] = State() }

    private mutating func step(rule i: Int, _ answer: Answer, confidence: Double?, at time: Double) -> Outcome {
        guard answer != .unread else { return .none }
        let s = settings[i]
        states[i].confidence = confidence
        if let confidence {
            states[i].recentConfidences.append(confidence)
            if states[i].recentConfidences.count > 5 { states[i].recentConfidences.removeFirst() }
        }
        var held: Outcome?
        var yes = answer == .yes
        if yes, let minimum = s.minConfidence, let confidence, confidence < minimum {
            yes = false
            held = .heldConfidence
        }
        states[i].recent.append(yes)
        if states[i].recent.count > s.window { states[i].recent.removeFirst(states[i].recent.count - s.window) }
        let yesCount = states[i].recent.filter { $0 }.count
        let noCount = states[i].recent.count - yesCount
        let previous = states[i].last
        var confirmed = previous
        if yes, yesCount >= s.confirm { confirmed = .yes }
        if !yes, noCount >= s.confirm { confirmed = .no }
        if held == nil, yes, confirmed != .yes { held = .heldConfirm }
        states[i].last = confirmed
        if held != nil { states[i].heldBack += 1 }

        let appeared = confirmed == .yes && previous != .yes
        let disappeared = confirmed == .no && previous == .yes
        let edge: RuleSettings.Edge? = appeared ? .appear : disappeared ? .disappear : nil
        guard let edge, s.on == .both || s.on == edge else { return held ?? .none }
        if let fired = states[i].lastFire, time - fired < (s.cooldown ?? cooldown) {
            states[i].suppressed += 1
            return .suppressed
        }
        states[i].lastFire = time
        states[i].fires += 1
        states[i].lastEdge = edge
        return .fired
    }

    /// Carries state over to a new rule list: a rule whose condition, reaction and settings are
    /// unchanged keeps its state; new or changed rules start fresh. Returns how many kept their state.
    @discardableResult
    public mutating func adopt(from old: [Rule], to new: [Rule]) -> Int {
        var adopted: [State] = []
        var kept = 0
        for rule in new {
            if let i = old.firstIndex(where: { $0.condition == rule.condition && $0.reaction == rule.reaction && $0.settings == rule.settings }),
                i < states.count
            {
                adopted.append(states[i])
                kept += 1
            } else {
                adopted.append(State())
            }
        }
        states = adopted
        settings = new.map(\.settings)
        return kept
    }
}

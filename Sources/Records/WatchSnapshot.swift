import LookCore
import ReactionDomain
import Rules

/// What the loop publishes after each frame and reload: the rules with their states and what their
/// rows show, the latest frame's numbers, and the counts. The service's status, MQTT's states and
/// the page are made from it; nothing outside reaches into the loop.
public struct WatchSnapshot: Sendable {
    public struct Row: Sendable {
        public var rule: Rule
        public var state: RuleMachine.State
        /// What the rule's row shows (`×3`, `3:59 left`, `chime`).
        public var shown: String
        /// A count rule's count (nil for other reactions).
        public var count: Int?
        /// The latest fire's description (`describe:`).
        public var description: String?
        /// Switched off from outside (Home Assistant): not asked until switched on.
        public var switchedOff: Bool
        /// Outside its `when_active` hours at the latest frame: not asked, so its answer is not `?`
        /// (cannot be read) but none.
        public var inactive: Bool

        public init(
            rule: Rule, state: RuleMachine.State, shown: String, count: Int? = nil, description: String? = nil, switchedOff: Bool = false,
            inactive: Bool = false
        ) {
            (self.rule, self.state, self.shown, self.count, self.description) = (rule, state, shown, count, description)
            (self.switchedOff, self.inactive) = (switchedOff, inactive)
        }
    }

    public var rows: [Row]
    public var rulesSource: String
    /// The latest frame's number (0 before the first) and whether it fired.
    public var frame: Int
    public var fired: Bool
    public var fires: Int
    public var reloads: Int
    /// The latest frame's numbers lines.
    public var numbers: [String]?
    /// The change gate's counts (nil when it is off) and the seconds since the run began.
    public var gate: GateCounts?
    public var runT = 0.0
    /// The latest fire's snapshot (`--snapshots`).
    public var lastSnapshot: String?
    /// Commands' and posts' outcomes so far.
    public var outbound = OutboundCounts()
    /// Whether the watch is paused (its switch turned off from outside).
    public var paused = false

    public init(
        rows: [Row], rulesSource: String, frame: Int = 0, fired: Bool = false, fires: Int = 0, reloads: Int = 0,
        numbers: [String]? = nil, gate: GateCounts? = nil, runT: Double = 0, lastSnapshot: String? = nil,
        outbound: OutboundCounts = OutboundCounts(), paused: Bool = false
    ) {
        self.paused = paused
        (self.rows, self.rulesSource, self.frame, self.fired, self.fires, self.reloads) = (rows, rulesSource, frame, fired, fires, reloads)
        (self.numbers, self.gate, self.runT, self.lastSnapshot, self.outbound) = (numbers, gate, runT, lastSnapshot, outbound)
    }
}

import LookCore
import Records
import Rules

/// What the loop publishes after each frame and reload: the rules with their states and what their
/// rows show, the latest frame's numbers, and the counts. The service's status is made from it;
/// nothing outside reaches into the loop.
public struct WatchSnapshot: Sendable {
    public struct Row: Sendable {
        public var rule: Rule
        public var state: RuleMachine.State
        /// What the rule's row shows (`×3`, `3:59 left`, `chime`).
        public var shown: String
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
}

import Foundation
import LookCore
import Records

/// What a watch tells its service manager (systemd's sd_notify, in lookd's executable).
public protocol ServiceNotifier: AnyObject, Sendable {
    func ready(status: String)
    func status(_ text: String)
    func reloading()
    func stopping()
    func watchdog()
}

/// What a watch does for systemd and for `lookd status`: the notifications and the status file,
/// made from the snapshots the loop publishes (at most twice a second when frames come faster, and
/// always after a frame that fired).
public final class WatchService: @unchecked Sendable {
    public let statusPath: String
    private let notifier: any ServiceNotifier
    private let source: String
    private let header: [(String, JSON)]
    private let eventsPath: String?
    private let started = Date()
    private var state = "starting"
    private var statusProblem: String?
    private var lastStatus = -Double.infinity
    /// While the model's calls fail: since which frame, how many in a row, and the last reason.
    private var failing: (since: Int, inARow: Int, reason: String)?
    /// The outputs' state for the status (MQTT, commands, posts), when any is in use.
    var outputs: (() -> JSON)?
    /// Each status as it is written (the page's).
    var onStatus: ((JSON) -> Void)?

    public init(config: WatchConfig, engine: String, eventsPath: String?, notifier: any ServiceNotifier) {
        self.statusPath = StatusFile.path(explicit: config.statusPath)
        self.notifier = notifier
        self.source = config.source
        self.header = [("source", .string(config.source)), ("engine", .string(engine))]
        self.eventsPath = eventsPath
    }

    /// The model is loaded and the source open.
    public func ready(_ snapshot: WatchSnapshot) {
        state = "watching"
        notifier.ready(status: "watching \(source) · \(snapshot.rows.count) rules")
        writeStatus(snapshot)
    }

    /// After each frame: the numbers line for systemd, the watchdog, and the status file.
    public func frameDone(_ frame: FrameOutcome, _ snapshot: WatchSnapshot) {
        notifier.status("\(frame.numbers) · frame \(frame.index)")
        notifier.watchdog()
        if failing != nil {
            failing = nil
            writeStatus(snapshot)
            return
        }
        guard !frame.fires.isEmpty || MonotonicClock().now() - lastStatus >= 0.5 else { return }
        writeStatus(snapshot)
    }

    /// A frame whose model call failed: the status says since when the engine fails, and why.
    public func frameFailed(_ failure: FrameFailure, _ snapshot: WatchSnapshot) {
        notifier.watchdog()
        failing = (since: failing?.since ?? failure.index, inARow: failure.inARow, reason: failure.reason)
        writeStatus(snapshot)
    }

    /// After a frame the change gate skipped: the watchdog, and the status at most every 2 s.
    public func skipped(_ snapshot: WatchSnapshot) {
        notifier.watchdog()
        guard MonotonicClock().now() - lastStatus >= 2 else { return }
        writeStatus(snapshot)
    }

    /// A reload starts (nil) or has ended with the rules in force.
    public func reload(_ snapshot: WatchSnapshot?) {
        notifier.watchdog()
        guard let snapshot else {
            notifier.reloading()
            state = "reloading"
            return
        }
        state = "watching"
        notifier.ready(status: "watching \(source) · \(snapshot.rows.count) rules")
        writeStatus(snapshot)
    }

    public func stopping(_ snapshot: WatchSnapshot, reason: String) {
        state = "stopping (\(reason))"
        notifier.stopping()
        writeStatus(snapshot)
    }

    public func stopped(_ snapshot: WatchSnapshot, record path: String?) {
        state = "stopped"
        writeStatus(snapshot, extra: [("record", .optional(path))])
    }

    /// The status file: the rules and their states, the numbers lines, the latest log lines.
    private func writeStatus(_ snapshot: WatchSnapshot, extra: [(String, JSON)] = []) {
        let rules = JSON.array(
            snapshot.rows.enumerated().map { i, row in
                .object([
                    ("rule", .int(i + 1)), ("condition", .string(row.rule.condition)), ("reaction", .string(row.rule.reaction.name)),
                    ("shown", .string(row.shown)), ("answer", .optional(row.state.last?.rawValue)), ("fires", .int(row.state.fires)),
                    ("suppressed", .int(row.state.suppressed)), ("held_back", .int(row.state.heldBack)),
                    ("settings", .string(row.rule.settings.summary)), ("confidence", .optional(row.state.confidence, places: 3)),
                    ("confidences", .array(row.state.recentConfidences.map { .number($0, places: 3) })),
                ])
            })
        let status = JSON.object(
            [
                ("schema", .string(StatusFile.schema)), ("pid", .int(Int(getpid()))), ("state", .string(state)),
                ("updated", .string(Timestamp.text(Date()))), ("started", .string(Timestamp.text(started))),
            ] + header + [
                ("rules_source", .string(snapshot.rulesSource)), ("rules", rules), ("reloads", .int(snapshot.reloads)),
                ("frame", .int(snapshot.frame)), ("fires", .int(snapshot.fires)),
                ("numbers", snapshot.numbers.map { .strings($0) } ?? .null),
                ("gate", snapshot.gate.map { $0.json(at: snapshot.runT) } ?? .null),
                ("last_snapshot", .optional(snapshot.lastSnapshot)), ("outputs", outputs?() ?? .null),
                (
                    "failing",
                    failing.map { .object([("since_frame", .int($0.since)), ("in_a_row", .int($0.inARow)), ("reason", .string($0.reason))]) } ?? .null
                ),
                ("log", .strings(Log.shared.recent)), ("events", .optional(eventsPath)),
            ] + extra)
        lastStatus = MonotonicClock().now()
        onStatus?(status)
        let problem = StatusFile.write(status, to: statusPath)
        if let problem, problem != statusProblem { Log.shared.warning(problem) }
        statusProblem = problem
    }
}

import Foundation
import LookCore
import Platform
import Records
import Status

/// What a watch tells its service manager (systemd's sd_notify: `SystemdNotifier`).
public protocol ServiceNotifier: AnyObject, Sendable {
    func ready(status: String)
    func status(_ text: String)
    func reloading()
    func stopping()
    func watchdog()
    /// How often the manager wants `WATCHDOG=1` (nil: it watches nothing).
    var watchdogInterval: Double? { get }
}

/// Something that takes each status as it is written (the page).
protocol StatusListener: AnyObject, Sendable {
    func status(_ json: JSON)
}

/// An output's own state in the status (MQTT's connection, waiting and dropped messages), and the
/// messages it dropped (a failure in `/metrics`).
protocol OutputState: AnyObject, Sendable {
    var stateEntry: (String, JSON)? { get }
    var dropped: Int { get }
}

/// What a watch does for systemd and for `lookd status`: the notifications and the status file,
/// made from the snapshots in the loop's events (at most twice a second when frames come faster,
/// and always after a frame that fired). Its throttles run on the injected clock.
public final class ServiceOutput: WatchOutput, @unchecked Sendable {
    public let share = HouseShare.renamedPerCamera
    public let name = "service"
    public let statusPath: String
    private let notifier: any ServiceNotifier
    private let source: String
    private let eventsPath: String?
    private let historyPath: String?
    /// Clips written and failed, and the newest (from the clips' thread, one event at a time).
    private var clips: (written: Int, failed: Int, last: String?) = (0, 0, nil)
    private let clock: any Clock
    private let started: Date
    private var engine = ""
    private var state = "starting"
    private var pace = AnswerPace()
    /// The camera, in a watch of several.
    private let camera: CameraName
    private var statusProblem: String?
    private var lastStatus = -Double.infinity
    /// While the model's calls fail: since which frame, how many in a row, and the last reason.
    private var failing: (since: Int, inARow: Int, reason: String)?
    private let states: [any OutputState]
    private let listeners: [any StatusListener]
    /// Whether the loop is alive, fed by every event; read by the watchdog's own thread, which
    /// pings while the loop waits within a declared bound (a silent server, a stream that stalls).
    private let lock = NSLock()
    private var liveness: LoopLiveness
    private var watching = false
    /// A live source lost (and why): the status says so instead of "watching" over a frozen frame.
    private var lost: (kind: String, reason: String, since: Date)?
    /// The snapshot last written, for a status written between frames (a source lost).
    private var latest: WatchSnapshot?
    private var ticking = false
    private let tickerStop = OnceFlag()
    /// Events from the loop and from a live source's thread are taken one at a time.
    private let receiving = NSLock()

    init(
        statusPath: String?, source: String, eventsPath: String?, historyPath: String? = nil, notifier: any ServiceNotifier, clock: any Clock,
        states: [any OutputState] = [], listeners: [any StatusListener] = [], camera: CameraName = .only
    ) {
        self.statusPath = StatusFile.path(explicit: statusPath, camera: camera)
        self.notifier = notifier
        self.source = source
        // Whole paths: the status is read from other folders (lookd status, lookd history).
        let whole = { (path: String) in
            path.hasPrefix("/") ? path : (FileManager.default.currentDirectoryPath as NSString).appendingPathComponent(path)
        }
        self.eventsPath = eventsPath.map(whole)
        self.historyPath = historyPath.map(whole)
        (self.clock, self.camera) = (clock, camera)
        started = clock.date()
        self.states = states
        self.listeners = listeners
        liveness = LoopLiveness(at: clock.now())
    }

    /// Starts the watchdog's thread when the manager watches: every half interval, `WATCHDOG=1`
    /// while the loop is alive (`LoopLiveness`), and a STATUS that says what a long wait waits for.
    public func start(events: any EventSink) throws(OutputFailure) {
        // Watches started by hand each keep their own status file: those of watches long gone go.
        // A status file that cannot be kept is said once, here, and by the start line's note.
        statusProblem = StatusFile.problem(statusPath)
        if let statusProblem { Log.shared.warning(statusProblem) } else { StatusFile.pruneStale(near: statusPath) }
        guard let interval = notifier.watchdogInterval, !ticking else { return }
        ticking = true
        tick(every: interval / 2, within: interval * 2)
    }

    /// The watchdog's look at the loop, every `seconds` on the clock until the stop.
    private func tick(every seconds: Double, within: Double) {
        clock.after(seconds) { [weak self] in
            guard let self, !self.tickerStop.isSet else { return }
            self.tick(within: within)
            self.tick(every: seconds, within: within)
        }
    }

    public func stop() { tickerStop.set() }

    /// One look at the loop: a ping when it is alive, and what it waits for when it waits long.
    func tick(within: Double) {
        let now = clock.now()
        // Under the lock, so no ping follows the STOPPING=1 that `.stopping` sends under it.
        lock.withLock {
            // From READY on (the loop's first frame), until STOPPING.
            guard watching, !tickerStop.isSet else { return }
            if liveness.isAlive(at: now, within: within) { notifier.watchdog() }
            if let note = liveness.waitNote(at: now) { notifier.status(note) }
        }
    }

    public var note: String? { statusProblem == nil ? "status in \(statusPath)" : "no status file (\(statusPath) cannot be used)" }

    public func receive(_ event: WatchEvent) {
        lock.withLock {
            if case .waiting(let wait) = event { liveness.waiting(wait, at: clock.now()) } else { liveness.beat(at: clock.now()) }
        }
        // A lost camera's events come from the source's own thread: one event at a time.
        receiving.withLock { take(event) }
    }

    /// The status and the notifications an event brings.
    private func take(_ event: WatchEvent) {
        switch event {
        case .ready(let engine, _, _): self.engine = engine
        case .watching(let snapshot):
            state = "watching"
            lock.withLock {
                notifier.ready(status: "watching \(source) · \(Quantity.count(snapshot.rows.count, "rule"))")
                watching = true
            }
            writeStatus(snapshot)
        case .answered(let frame):
            pace.answered(at: clock.now(), time: clock.date(), age: frame.done)
            notifier.status("\(frame.numbers) · frame \(frame.index)")
        case .frame(let end, _, let snapshot):
            notifier.watchdog()
            // After a failure, at once: the status no longer says the engine fails.
            if failing != nil || !end.fires.isEmpty || clock.now() - lastStatus >= 0.5 {
                failing = nil
                writeStatus(snapshot)
            }
        case .frameFailed(let failure, let snapshot):
            notifier.watchdog()
            failing = (since: failing?.since ?? failure.index, inARow: failure.inARow, reason: failure.reason)
            writeStatus(snapshot)
        case .skipped(let snapshot):
            notifier.watchdog()
            if clock.now() - lastStatus >= 2 { writeStatus(snapshot) }
        case .reloading:
            notifier.watchdog()
            notifier.reloading()
            state = "reloading"
        case .reloaded(_, let snapshot):
            notifier.watchdog()
            state = "watching"
            notifier.ready(status: "watching \(source) · \(Quantity.count(snapshot.rows.count, "rule"))")
            writeStatus(snapshot)
        case .live(let live): sourceChanged(live)
        case .stopping(let reason, let snapshot):
            // systemd stops watching once it is told the service stops: so do the pings.
            lock.withLock {
                tickerStop.set()
                notifier.stopping()
            }
            state = "stopping (\(reason))"
            writeStatus(snapshot)
        case .command(_, let snapshot): writeStatus(snapshot) // a switch: a rule switched off, a camera paused
        case .clip(let clip):
            (clips.written, clips.failed) = (clips.written + (clip.path == nil ? 0 : 1), clips.failed + (clip.path == nil ? 1 : 0))
            clips.last = clip.path ?? clips.last
            if let latest { writeStatus(latest) }
        case .done(_, _, let record, let snapshot):
            state = "stopped"
            writeStatus(snapshot, extra: [("record", .string(record))])
        default: break
        }
    }

    /// A camera or stream lost, still lost or found again: said to systemd and in the status.
    private func sourceChanged(_ live: LiveChange) {
        switch live.change {
        case .lost(let reason, _): lost = (live.kind, reason, clock.date())
        case .stillLost(_, let reason, _): lost = (live.kind, reason, lost?.since ?? clock.date())
        case .found: lost = nil
        }
        if let lost { notifier.status("\(lost.kind) lost: \(lost.reason)") }
        if let latest { writeStatus(latest) }
    }

    /// The status file: the rules and their states, the numbers lines, the latest log lines.
    private func writeStatus(_ snapshot: WatchSnapshot, extra: [(String, JSON)] = []) {
        latest = snapshot
        let rules = JSON.array(
            snapshot.rows.enumerated().map { i, row in
                .object([
                    ("rule", .int(i + 1)), ("condition", .string(row.rule.condition)), ("reaction", .string(row.rule.reaction.name)),
                    ("shown", .string(row.shown)), ("answer", row.inactive ? .null : .optional(row.state.last?.rawValue)),
                    ("fires", .int(row.state.fires)),
                    ("suppressed", .int(row.state.suppressed)), ("held_back", .int(row.state.heldBack)),
                    ("settings", .string(row.rule.settings.summary)), ("confidence", .optional(row.state.confidence, places: 3)),
                    ("confidences", .array(row.state.recentConfidences.map { .number($0, places: 3) })),
                    ("description", .optional(row.description)), ("switched_off", .bool(row.switchedOff)),
                    ("inactive", .bool(row.inactive)),
                ])
            })
        let outputs = JSON.object(states.compactMap(\.stateEntry) + snapshot.outbound.fields)
        let status = JSON.object(
            [
                ("schema", .string(StatusFile.schema)), ("pid", .int(Int(getpid()))),
                (
                    "state",
                    .string(lost.map { "\($0.kind) lost since \(Timestamp.text($0.since)): \($0.reason)" } ?? (snapshot.paused ? "paused" : state))
                ),
                ("paused", .bool(snapshot.paused)),
                ("source_up", .bool(lost == nil)),
                ("updated", .string(Timestamp.text(clock.date()))), ("started", .string(Timestamp.text(started))),
                ("source", .string(source)), ("camera", .optional(camera.written)), ("engine", .string(engine)),
                ("rules_source", .string(snapshot.rulesSource)), ("rules", rules), ("reloads", .int(snapshot.reloads)),
                ("frame", .int(snapshot.frame)), ("fires", .int(snapshot.fires)),
                ("numbers", snapshot.numbers.map { .strings($0) } ?? .null),
                ("gate", snapshot.gate.map { $0.json(at: snapshot.runT) } ?? .null),
                ("last_snapshot", .optional(snapshot.lastSnapshot)), ("outputs", outputs),
                (
                    "clips",
                    .object([("written", .int(clips.written)), ("failed", .int(clips.failed)), ("last", .optional(clips.last))])
                ),
                (
                    "failing",
                    failing.map { .object([("since_frame", .int($0.since)), ("in_a_row", .int($0.inARow)), ("reason", .string($0.reason))]) } ?? .null
                ),
                ("log", .strings(Log.shared.recent)), ("events", .optional(eventsPath)), ("history", .optional(historyPath)),
                ("waiting_for", .optional(lock.withLock { liveness.wait?.what })),
            ] + pace.fields(at: clock.now()) + extra)
        lastStatus = clock.now()
        for listener in listeners { listener.status(status) }
        let problem = StatusFile.write(status, to: statusPath)
        if let problem, problem != statusProblem { Log.shared.warning(problem) }
        statusProblem = problem
    }
}

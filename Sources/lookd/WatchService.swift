import Foundation
import LookCore
import Reactions
import Rules

/// What a watch does for systemd and for `lookd status`: sd_notify (READY, STATUS, WATCHDOG,
/// RELOADING, STOPPING), the status file, and reloading the rules on SIGHUP (or, with
/// `--watch-rules`, when the file changes) without dropping the model or the source.
final class WatchService: @unchecked Sendable {
    let notifier: SystemdNotifier
    let statusPath: String
    private let settings: WatchSettings
    private let events: EventLog
    private let record: RunRecord
    private let reactor: Reactor
    private let header: [(String, JSON)]
    private let started = Date()
    private let lock = NSLock()
    private var reloadAsked = false
    private var state = "starting"
    private var rulesSource: String
    private var rulesStamp: Date?
    private var statusProblem: String?

    init(settings: WatchSettings, events: EventLog, record: RunRecord, reactor: Reactor, rulesSource: String,
         header: [(String, JSON)], notifier: SystemdNotifier = SystemdNotifier()) {
        self.settings = settings
        self.events = events
        self.record = record
        self.reactor = reactor
        self.rulesSource = rulesSource
        self.header = header
        self.notifier = notifier
        self.statusPath = StatusFile.path(explicit: settings.statusPath)
        rulesStamp = Self.modified(settings.rulesSpec)
    }

    /// SIGHUP: reload before the next frame.
    func askReload() { lock.withLock { reloadAsked = true } }

    /// The model is loaded and the source open.
    func ready(_ loop: WatchLoop) {
        state = "watching"
        notifier.ready(status: "watching \(settings.source) · \(loop.rules.count) rules")
        writeStatus(loop)
    }

    /// After each frame: the numbers line for systemd, the watchdog, and the status file (at most
    /// twice a second when frames come faster, and always after a frame that fired).
    func frameDone(_ loop: WatchLoop, _ report: WatchLoop.FrameReport) {
        notifier.status("\(report.numbers) · frame \(report.frame)")
        notifier.watchdog()
        let now = MonotonicClock().now()
        guard report.fired || now - lastStatus >= 0.5 else { return }
        writeStatus(loop)
    }
    private var lastStatus = -Double.infinity

    func stopping(_ loop: WatchLoop, reason: String) {
        state = "stopping (\(reason))"
        notifier.stopping()
        writeStatus(loop)
    }

    func stopped(_ loop: WatchLoop, record path: String?) {
        state = "stopped"
        writeStatus(loop, extra: [("record", .optional(path))])
    }

    /// Before each frame: reloads the rules when asked (SIGHUP) or, with `--watch-rules`, when the
    /// file changed. A valid file replaces the rules; an invalid one is rejected and the old rules stay.
    func reloadIfAsked(_ loop: WatchLoop) {
        notifier.watchdog()
        var asked = lock.withLock { () -> Bool in defer { reloadAsked = false }; return reloadAsked }
        var why = "SIGHUP"
        if !asked, settings.watchRules, let stamp = Self.modified(settings.rulesSpec), stamp != rulesStamp {
            asked = true
            why = "the file changed"
        }
        guard asked else { return }
        rulesStamp = Self.modified(settings.rulesSpec)
        notifier.reloading()
        state = "reloading"
        do {
            let (set, source) = try settings.loadRules()
            let kept = loop.adopt(set.rules)
            reactor.keep(only: Set(set.rules.map(\.condition)))
            record.adopt(set.rules)
            rulesSource = source
            let rules = WatchCommand.rulesJSON(set.rules)
            record.reloads.append(.object([("t", .string(Timestamp.text(Date()))), ("why", .string(why)), ("rules", rules)]))
            events.write("rules", [("action", .string("reloaded")), ("why", .string(why)), ("source", .string(source)),
                                   ("count", .int(set.rules.count)), ("kept", .int(kept)), ("rules", rules),
                                   ("warnings", .strings(set.warnings))])
            for warning in set.warnings { Log.shared.warning(warning) }
            Log.shared.notice("rules reloaded from \(source) (\(why)): \(set.rules.count) rules, \(kept) kept their state")
        } catch {
            events.write("rules", [("action", .string("rejected")), ("why", .string(why)), ("source", .string(settings.rulesSpec)),
                                   ("error", .string(error.description))])
            Log.shared.error("rules not reloaded: \(error.description); the old rules stay")
        }
        state = "watching"
        notifier.ready(status: "watching \(settings.source) · \(loop.rules.count) rules")
        writeStatus(loop)
    }

    /// The status file: the rules and their states, the numbers lines, the latest log lines.
    func writeStatus(_ loop: WatchLoop, extra: [(String, JSON)] = []) {
        let states = loop.machine.states
        let rules = JSON.array(loop.rules.enumerated().map { i, rule in
            let s = i < states.count ? states[i] : RuleMachine.State()
            return .object([("rule", .int(i + 1)), ("condition", .string(rule.condition)), ("reaction", .string(rule.reaction.name)),
                            ("shown", .string(reactor.shown(rule.reaction, condition: rule.condition))),
                            ("answer", .optional(s.last?.rawValue)), ("fires", .int(s.fires)), ("suppressed", .int(s.suppressed))])
        })
        let report = loop.latest
        let status = JSON.object([
            ("schema", .string(StatusFile.schema)), ("pid", .int(Int(getpid()))), ("state", .string(state)),
            ("updated", .string(Timestamp.text(Date()))), ("started", .string(Timestamp.text(started))),
        ] + header + [
            ("rules_source", .string(rulesSource)), ("rules", rules), ("reloads", .int(record.reloads.count)),
            ("frame", .int(report?.frame ?? 0)), ("fires", .int(record.fires.count)),
            ("numbers", report.map { .strings([$0.numbers, $0.place]) } ?? .null),
            ("log", .strings(Log.shared.recent)), ("events", .optional(events.path)),
        ] + extra)
        lastStatus = MonotonicClock().now()
        let problem = StatusFile.write(status, to: statusPath)
        if let problem, problem != statusProblem { Log.shared.warning(problem) }
        statusProblem = problem
    }

    private static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

/// A SIGHUP that may come before the service exists (while the model loads): kept until it does.
final class ReloadRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false
    private weak var _service: WatchService?

    var service: WatchService? {
        get { lock.withLock { _service } }
        set {
            let early = lock.withLock { () -> Bool in _service = newValue; defer { pending = false }; return pending }
            if early { newValue?.askReload() }
        }
    }

    func ask() {
        if let service { service.askReload() } else { lock.withLock { pending = true } }
    }
}

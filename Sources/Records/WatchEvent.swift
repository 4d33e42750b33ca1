import LookCore
import ReactionDomain
import Rules

/// What a watch says as it runs, typed. The loop and the composition root emit these into one
/// `EventStream`; every output (the recorder, the service, MQTT, the page, the terminal) takes the
/// ones it needs. The event log's lines are made from them (`WatchEvent+Line.swift`).
public enum WatchEvent: Sendable {
    /// The run began: the event log's first line.
    case started(version: String, pid: Int, args: [String])
    /// The model is loaded.
    case ready(engine: String, loadSeconds: Double, threads: Int?)
    /// A stage failed: `model`, `source`, `rules`, `watch`, `record`, or an output's name.
    case failed(stage: String, message: String)
    /// Something a user should know, which the run goes on without (a state file it cannot use).
    case warning(stage: String, message: String)
    /// The source is open.
    case source(SourceInfo)
    /// Rules were loaded at the start, reloaded, or a reload was rejected.
    case rules(RulesChange)
    /// The sounds this build has (when sounds play).
    case sounds(inBuild: [String])
    /// `--trigger FILE` appeared.
    case trigger(file: String)
    /// The loop is about to take its first frame.
    case watching(WatchSnapshot)
    /// A frame's answer was read: its outcome, once (its `watch` line), before its fires.
    case answered(FrameOutcome)
    /// A rule fired (its reaction has run); `count` is a count rule's count after it.
    case fired(FireOutcome, rule: Rule, count: Int?)
    /// An effect's hold ended.
    case held(HoldOutcome, fire: FireOutcome)
    /// A fire's description came (or failed), after the frame's fires went out.
    case described(DescribeOutcome, fire: FireOutcome)
    /// A fire's clip was written (or failed), after the post-roll, from the clips' own thread.
    case clip(ClipOutcome)
    /// Clips went to keep within the retention limits (`--keep-days`, `--keep-size`).
    case clipsRemoved(ClipsRemoved)
    /// A frame is complete: its fires with their holds and descriptions; `shown` is the picture the
    /// model got.
    case frame(FrameEnd, shown: RGBImage?, WatchSnapshot)
    /// The change gate skipped a frame.
    case skipped(WatchSnapshot)
    /// A frame's model call failed.
    case frameFailed(FrameFailure, WatchSnapshot)
    /// A reload starts; it has ended (`accepted`: the new rules are in force).
    case reloading
    case reloaded(accepted: Bool, WatchSnapshot)
    /// A reaction's later outcome (a sound played, a command's exit), from the reactions' threads.
    case report(ReactionReport)
    /// A camera or stream was lost, is still lost, or was found again.
    case live(LiveChange)
    /// The MQTT broker's connection changed.
    case mqtt(MQTTChange)
    /// A command from outside was taken (a rule switched, a count reset) or refused.
    case command(CommandOutcome, WatchSnapshot)
    /// The loop entered a wait with a bound (nil: it left it), for the watchdog and the status.
    case waiting(LoopWait?)
    /// The loop has ended; the run is stopping.
    case stopping(reason: String, WatchSnapshot)
    /// The stop line, then the run record is written and the done line follows.
    case stop(reason: String, frames: Int, lostLines: Int)
    case done(frames: Int, fires: Int, record: String, WatchSnapshot)
}

extension SourceInfo {
    /// The run record header's `source` object (the `source` line without the count).
    public var fields: [(String, JSON)] {
        [
            ("kind", .string(kind)), ("name", .string(name)), ("size", .ints([width, height])),
            ("fps", .optional(fps)), ("duration", .optional(duration)), ("pace", .string(pace)),
        ]
    }
}

/// Rules loaded, reloaded or rejected.
public struct RulesChange: Sendable {
    public enum Action: String, Sendable { case loaded, reloaded, rejected }

    public var action: Action
    /// What asked for a reload (`SIGHUP`, `the file changed`).
    public var why: String?
    public var source: String
    public var rules: [Rule]
    public var warnings: [String]
    /// The rules written `enabled: false` (kept in the file, not asked).
    public var disabled: [Rule] = []
    /// Rules whose state was kept (a reload); why a reload was rejected.
    public var kept: Int?
    public var error: String?

    public static func loaded(_ rules: [Rule], source: String, warnings: [String], disabled: [Rule] = []) -> RulesChange {
        RulesChange(action: .loaded, source: source, rules: rules, warnings: warnings, disabled: disabled)
    }
    public static func reloaded(_ rules: [Rule], why: String, source: String, kept: Int, warnings: [String], disabled: [Rule] = [])
        -> RulesChange
    {
        RulesChange(action: .reloaded, why: why, source: source, rules: rules, warnings: warnings, disabled: disabled, kept: kept)
    }
    public static func rejected(why: String, source: String, error: String) -> RulesChange {
        RulesChange(action: .rejected, why: why, source: source, rules: [], warnings: [], error: error)
    }
}

/// A live source's loss and return.
public struct LiveChange: Sendable {
    public enum Change: Sendable {
        case lost(reason: String, retry: Double)
        case stillLost(attempt: Int, reason: String, retry: Double)
        case found(width: Int, height: Int, native: String, after: Double)
    }

    /// `camera` or `stream`, and the device or URL.
    public var kind: String
    public var device: String
    public var change: Change

    public init(kind: String, device: String, change: Change) {
        (self.kind, self.device, self.change) = (kind, device, change)
    }
}

/// The MQTT broker's connection: `connecting` (with the instance's name), `connected` (with what
/// was dropped while away) or `lost` (with the reason).
public struct MQTTChange: Sendable {
    public var state: String
    public var broker: String
    public var name: String?
    public var reason: String?
    public var dropped: Int

    public init(state: String, broker: String, name: String? = nil, reason: String? = nil, dropped: Int = 0) {
        (self.state, self.broker, self.name, self.reason, self.dropped) = (state, broker, name, reason, dropped)
    }
}

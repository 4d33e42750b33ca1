import Foundation
import LookCore
import Platform
import ReactionDomain
import Rules

/// The run record written at stop, `watch-run-<epoch>.json`: the rules, the prompt, the settings,
/// every frame, every fire and what was held back, and a summary. It takes typed outcomes (a frame
/// with its fires and holds, a reaction's report, a reload) and writes JSON.
/// Used from the loop's thread, except `add(_: ReactionReport)`, which takes a lock: reactions
/// report from theirs.
public final class RunRecord: @unchecked Sendable {
    public static let schema = "lookd-watch-run/1"

    /// Per-frame detail kept by default: every frame of a run on a file (up to this many), the newest
    /// this many in service mode (a camera or a stream, or under systemd), so that an always-on
    /// service's memory stays flat. The summary's counts cover every frame; its times, the frames kept.
    public static let fileWindow = 50_000
    public static let serviceWindow = 1_000

    /// How many frames keep their detail: a live source or a run under systemd (service mode)
    /// keeps the newest `serviceWindow`, a file or a photo folder up to `fileWindow`.
    public static func window(for source: SourceInfo, environment: [String: String] = ProcessInfo.processInfo.environment) -> Int {
        let live = source.kind == "camera" || source.kind == "stream"
        return live || environment["NOTIFY_SOCKET"] != nil ? serviceWindow : fileWindow
    }

    public let epoch: Int
    /// How many of the newest frames (and fires, held-back yeses, failures, reports) keep their detail.
    public let window: Int
    /// The run's settings, engine, source and rules, written before the frames.
    public var header: [(String, JSON)] = []
    /// The entries kept (the newest `window` of each): frames, fires, yeses held back, failed frames.
    private var frames: Recent<JSON>
    private var fires: Recent<JSON>
    private var suppressed: Recent<JSON>
    private var failures: Recent<JSON>
    /// The change gate's counts (set by the loop before the record is written).
    public var gate = GateCounts()
    /// Event-log lines that could not be written (a full disk), set before the record is written.
    public var logLinesLost = 0
    /// The frames' and fires' entries kept, oldest first.
    public var frameEntries: [JSON] { frames.all }
    public var fireEntries: [JSON] { fires.all }
    /// Every frame answered, fire, yes held back and failed frame, also past the detail kept.
    public private(set) var frameCount = 0
    public private(set) var fireCount = 0
    public private(set) var suppressedCount = 0
    public private(set) var failedCount = 0
    /// What reactions reported later, from other threads: sounds played, lines spoken, timers ended.
    private let reportLock = NSLock()
    private var sounds: Recent<JSON>
    private var speech: Recent<JSON>
    private var timers: Recent<JSON>
    private var commands: Recent<JSON>
    private var posts: Recent<JSON>
    private var clips: Recent<JSON>
    /// Clips written and failed, and their bytes.
    private var clipCounts = (written: 0, failed: 0, bytes: 0)

    /// Keeps a later report (a sound played, a line spoken, a timer's end); safe from any thread.
    public func add(_ report: ReactionReport) {
        let entry = JSON.object(report.fields)
        reportLock.withLock {
            switch report {
            case .sound: sounds.append(entry)
            case .speech: speech.append(entry)
            case .timer: timers.append(entry)
            case .command: commands.append(entry)
            case .post: posts.append(entry)
            }
        }
    }

    /// A fire's clip (or why it has none); safe from any thread.
    public func add(_ clip: ClipOutcome) {
        reportLock.withLock {
            clips.append(.object(clip.eventFields))
            if clip.path == nil {
                clipCounts.failed += 1
            } else {
                (clipCounts.written, clipCounts.bytes) = (clipCounts.written + 1, clipCounts.bytes + clip.bytes)
            }
        }
    }

    /// A frame whose model call failed.
    public func add(_ failure: FrameFailure) {
        failedCount += 1
        failures.append(.object(failure.eventFields))
    }

    private var series: [String: Recent<Double>] = [:]
    private var yes: [String: Int] = [:]
    private var unread = 0
    private var firesByRule: [String: Int] = [:]
    private var firesByReaction: [String: Int] = [:]
    private var firesByEffect: [String: Int] = [:]
    private var firesBySound: [String: Int] = [:]
    private var boxesNamed: [String: Int] = [:]
    private var cellsNamed: [String: Int] = [:]
    private var firesWithBox = 0
    private var firesWithCell = 0
    private var holds: Recent<Double>
    private var holdCount = 0
    private var holdTotal = 0.0
    private var scored = 0
    private var matched = 0
    /// Every rule's condition in the order first seen (a reload can add some).
    private var conditions: [String] = []
    /// The rules each reload brought: when, and what.
    private var reloads: [JSON] = []
    public var reloadCount: Int { reloads.count }

    public init(epoch: Int, rules: [Rule], window: Int = RunRecord.fileWindow) {
        self.epoch = epoch
        self.window = window
        (frames, fires, suppressed, failures) = (Recent(limit: window), Recent(limit: window), Recent(limit: window), Recent(limit: window))
        (sounds, speech, timers, holds) = (Recent(limit: window), Recent(limit: window), Recent(limit: window), Recent(limit: window))
        (commands, posts, clips) = (Recent(limit: window), Recent(limit: window), Recent(limit: window))
        adopt(rules)
    }

    /// A reload's new rules, in force from now on: when, why, and what.
    public func reloaded(_ rules: [Rule], why: String, at date: Date) {
        adopt(rules)
        reloads.append(.object([("t", .string(Timestamp.text(date))), ("why", .string(why)), ("rules", RulesJSON.list(rules))]))
    }

    /// The rules in force from now on (at the start, and after a reload).
    private func adopt(_ rules: [Rule]) {
        current = rules.map(\.condition)
        for c in current where yes[c] == nil {
            conditions.append(c)
            yes[c] = 0
        }
    }
    private var current: [String] = []

    /// A frame, complete: its entry, its numbers in the summary, what the cooldown held back, its
    /// fires and their holds (`end`); `written`: the seconds its `watch` line took to write.
    public func add(_ frame: FrameOutcome, end: FrameEnd, written: Double?) {
        frameCount += 1
        frames.append(frame.recordEntry(written: written, end: end))
        for (i, a) in frame.answers.enumerated() where i < current.count {
            if a == .yes { yes[current[i], default: 0] += 1 }
            if a == .unread { unread += 1 }
        }
        add("frame_ms", frame.done * 1000)
        add("model_ms", frame.model * 1000)
        add("first_token_ms", frame.timings.firstToken.map { $0 * 1000 })
        add("grab_ms", frame.grab * 1000)
        add("decode_ms", frame.decode.map { $0 * 1000 })
        add("scale_ms", frame.scale.map { $0 * 1000 })
        add("age_ms", frame.age * 1000)
        add("prompt_ms", frame.prompt * 1000)
        add("parse_ms", frame.parse * 1000)
        add("record_ms", written.map { $0 * 1000 })
        add("gate_ms", frame.gate * 1000)
        add("tokens_in", Double(frame.timings.inputTokens))
        add("tokens_out", Double(frame.timings.outputTokens))
        if let truth = frame.truth, let matched = frame.matched {
            scored += min(truth.count, frame.answers.count)
            self.matched += matched
        }
        for i in frame.suppressed where i < current.count {
            suppressedCount += 1
            suppressed.append(
                .object([
                    ("rule", .int(i + 1)), ("condition", .string(current[i])), ("frame", .int(frame.index)),
                    ("t", .number(frame.captureT)),
                ]))
        }
        for fire in end.fires { add(fire, hold: end.holds[fire.number], describe: end.descriptions[fire.number]) }
    }

    private func add(_ fire: FireOutcome, hold: HoldOutcome?, describe: DescribeOutcome?) {
        fireCount += 1
        fires.append(fire.recordEntry(hold: hold, describe: describe))
        let condition = fire.condition
        firesByRule[condition, default: 0] += 1
        if let place = fire.place {
            if place.box != nil { boxesNamed[condition, default: 0] += 1; firesWithBox += 1 }
            if place.cell != nil { cellsNamed[condition, default: 0] += 1; firesWithCell += 1 }
            if place.text != nil {
                add("place_ms", place.seconds * 1000)
                add("place_tokens", Double(place.tokens))
            }
        }
        firesByReaction[fire.reaction.kind, default: 0] += 1
        if let effect = fire.reaction.as(EffectReaction.self)?.effect { firesByEffect[effect.rawValue, default: 0] += 1 }
        if let sound = fire.reaction.base.playedSound { firesBySound[sound, default: 0] += 1 }
        if let hold {
            holds.append(hold.held * 1000)
            holdCount += 1
            holdTotal += hold.held * 1000
            add("render_ms", hold.render.map { $0 * 1000 })
        }
        if let describe { add("describe_ms", describe.seconds * 1000) }
    }

    private func add(_ key: String, _ value: Double?) {
        guard let value else { return }
        series[key, default: Recent(limit: window)].append(value)
    }

    /// The summary: frame count, median and range of each time, yes counts, unread answers, fires.
    public func summary(stopReason: String, seconds: Double) -> JSON {
        func stats(_ values: [Double]) -> JSON {
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return .null }
            let mid = sorted.count / 2
            let median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
            return .object([
                ("median", .number(median, places: 2)), ("min", .number(sorted.first!, places: 2)),
                ("max", .number(sorted.last!, places: 2)),
            ])
        }
        func table(_ d: [String: Int]) -> JSON { .object(d.sorted { $0.key < $1.key }.map { ($0.key, .int($0.value)) }) }
        var fields: [(String, JSON)] = [
            ("frames", .int(frameCount)),
            ("frames_detailed", .int(frames.count)),
            ("frames_failed", .int(failedCount)),
            ("gate", gate.json(at: seconds)),
            ("window", .int(window)),
            ("seconds", .number(seconds)),
            ("stop", .string(stopReason)),
            ("log_lines_lost", .int(logLinesLost)),
        ]
        for key in [
            "frame_ms", "model_ms", "first_token_ms", "grab_ms", "decode_ms", "scale_ms", "age_ms", "prompt_ms", "parse_ms", "record_ms", "gate_ms",
            "tokens_in", "tokens_out", "place_ms", "place_tokens", "render_ms", "describe_ms",
        ] {
            fields.append((key, stats(series[key]?.all ?? [])))
        }
        fields += [
            ("yes", .object(conditions.map { ($0, .int(yes[$0] ?? 0)) })),
            ("reloads", .int(reloads.count)),
            ("unread", .int(unread)),
            ("fires", .int(fireCount)),
            ("fires_by_rule", table(firesByRule)),
            ("fires_by_reaction", table(firesByReaction)),
            ("fires_by_effect", table(firesByEffect)),
            ("fires_by_sound", table(firesBySound)),
            ("suppressed", .int(suppressedCount)),
            (
                "holds",
                .object([
                    ("count", .int(holdCount)), ("total_ms", .number(holdTotal, places: 1)),
                    ("min_ms", .optional(holds.all.min(), places: 1)), ("max_ms", .optional(holds.all.max(), places: 1)),
                ])
            ),
            ("boxes_named", table(boxesNamed)),
            ("cells_named", table(cellsNamed)),
            ("fires_with_box", .int(firesWithBox)),
            ("fires_with_cell", .int(firesWithCell)),
            (
                "clips",
                reportLock.withLock {
                    .object([("written", .int(clipCounts.written)), ("failed", .int(clipCounts.failed)), ("bytes", .int(clipCounts.bytes))])
                }
            ),
        ]
        if scored > 0 { fields += [("answers_scored", .int(scored)), ("answers_matched", .int(matched))] }
        return .object(fields)
    }

    /// Writes the record to `path` whole; returns the path.
    public func write(to path: String, stopReason: String, seconds: Double) throws(SafeFile.Failure) -> String {
        let json = JSON.object(
            [("schema", .string(Self.schema))] + header + [
                ("frames", .array(frames.all)),
                ("failed", .array(failures.all)),
                ("fires", .array(fires.all)),
                ("suppressed", .array(suppressed.all)),
                ("reloads", .array(reloads)),
                ("sounds", .array(reportLock.withLock { sounds.all })),
                ("speech", .array(reportLock.withLock { speech.all })),
                ("timers", .array(reportLock.withLock { timers.all })),
                ("commands", .array(reportLock.withLock { commands.all })),
                ("posts", .array(reportLock.withLock { posts.all })),
                ("clips", .array(reportLock.withLock { clips.all })),
                ("summary", summary(stopReason: stopReason, seconds: seconds)),
            ])
        try SafeFile.write(json.text(indent: 1) + "\n", to: path)
        return path
    }
}

import Eval
import Foundation
import LookCore
import Rules

/// `lookd eval` scores rules against a labelled clip (or an event log); `lookd tune` replays a run's
/// answers through the firing rule for a grid of settings.
enum EvalCommand {
    static let help = """
        Usage: lookd eval --source CLIP --rules FILE --truth FILE [options] [watch options]
               lookd eval --events FILE --truth FILE [--rules FILE] [options]

        Watches CLIP as lookd watch does (--pace frames by default, no sounds, any engine, the gate
        included) and scores each rule against the truth file's spans (see docs/eval.md):
          answers   precision and recall of yes at the answered frames, also with min_confidence
          fires     true fires (inside a span, or within --tolerance after it ends), false fires an
                    hour, spans missed, and the delay from a span's start to its first fire
        --events FILE scores a service's event log instead (spans are then times of day, h:mm:ss).
        The run record stays in --record DIR (default: the current folder) for lookd tune.

          --truth FILE              the spans each rule's thing is in view (required)
          --tolerance S             seconds after a span in which a fire still counts (default 3)
          --json FILE               the figures as JSON
          --html FILE               a self-contained report with a timeline a rule
          --min-recall R            exit 1 unless every rule fired on at least R (0-1) of its spans
          --max-false-per-hour N    exit 1 unless every rule made at most N false fires an hour

        Usage: lookd tune --record RUN.json|EVENTS.jsonl --truth FILE [--rules FILE] [--tolerance S] [--cooldown S]

        Replays the recorded answers through the firing rule (cooldown, confirm N of M,
        min_confidence) for a grid of settings a rule, with no model call, and prints the settings
        that best trade missed spans and false fires, then delay, as rules-file lines to paste.
        --rules: the rules whose own settings are the starting point (default: the defaults, with
        the run's --cooldown, or --cooldown S).
        """

    static let valued: Set<String> = ["truth", "tolerance", "json", "html", "min-recall", "max-false-per-hour", "events"]

    static func run(_ words: [String]) throws(CommandFailure) {
        // Eval's own options; the rest are the watch's.
        var own: [String] = [], watch: [String] = []
        var i = 0
        while i < words.count {
            let name = words[i].hasPrefix("--") ? String(words[i].dropFirst(2).prefix { $0 != "=" }) : ""
            if valued.contains(name) {
                own.append(words[i])
                if !words[i].contains("="), i + 1 < words.count { own.append(words[i + 1]); i += 1 }
            } else {
                watch.append(words[i])
            }
            i += 1
        }
        let args = try Arguments(own, valued: valued, switches: [])
        guard let truthPath = args.value("truth") else { throw usage("eval needs --truth FILE (the spans each rule's thing is in view)") }
        let truth = try loadTruth(truthPath)
        let tolerance = try args.number("tolerance", default: 3, in: 0...3600)
        // The reports' paths are checked before the watch, which can take long, not after it.
        for path in [args.value("json"), args.value("html")].compactMap({ $0 }) {
            let folder = (path as NSString).deletingLastPathComponent
            if let problem = WritableFolder.problem(folder.isEmpty ? "." : folder, what: "folder for \(path)", create: false) {
                throw CommandFailure(code: .usage, message: problem)
            }
            do throws(SafeFile.Failure) { try SafeFile.check(path) } catch { throw CommandFailure(code: .usage, message: error.description) }
        }
        let rulesSpec = value("rules", in: watch)
        let rules = try rulesSpec.map { spec throws(CommandFailure) in try loadRules(spec) }
        if let rules { try check(truth, against: rules) }
        let recording: Recording
        if let events = args.value("events") {
            guard watch.allSatisfy({ $0 == "--rules" || $0 == rulesSpec }) else {
                throw usage("eval --events scores a log; it takes no watch options but --rules")
            }
            recording = try load(events, code: .usage)
        } else {
            guard rules != nil else { throw usage("eval needs --rules FILE, as a watch does") }
            var run = watch
            if value("pace", in: run) == nil { run += ["--pace", "frames"] }
            if !run.contains("--no-sound") { run.append("--no-sound") }
            if value("state", in: run) == nil { run += ["--state", "off"] }
            // The watch's page (with --http) draws the truth's spans on its timelines.
            run += ["--truth", truthPath]
            let log = value("log", in: run) ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("lookd-eval-\(getpid()).jsonl")
            if value("log", in: run) == nil { run += ["--log", log] }
            defer { if value("log", in: watch) == nil { try? FileManager.default.removeItem(atPath: log) } }
            let before = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
            try WatchCommand.run(run)
            recording = try load(log, from: before)
        }
        if let problem = recording.clockProblem(truth, tolerance: tolerance) { throw CommandFailure(code: .usage, message: problem) }
        print("Scored on \(recording.clock.rawValue) (frames \(recording.timeRange)).")
        let minConfidence = (rules ?? []).reduce(into: [String: Double]()) { $0[$1.condition] = $1.settings.minConfidence }
        let report = EvalReport(
            scores: Scoring.score(recording, truth: truth, tolerance: tolerance, minConfidence: minConfidence), recording: recording, truth: truth,
            tolerance: tolerance, minRecall: try optional(args, "min-recall", in: 0...1),
            maxFalsePerHour: try optional(args, "max-false-per-hour", in: 0...1e9))
        print(report.table)
        try write(report.json.text(indent: 1) + "\n", to: args.value("json"))
        try write(report.html, to: args.value("html"))
        let failures = report.failures
        if !failures.isEmpty { throw CommandFailure(code: .failure, message: "below the standard:\n  " + failures.joined(separator: "\n  ")) }
    }

    static func tune(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: ["record", "truth", "rules", "tolerance", "cooldown"], switches: [])
        guard let record = args.value("record"), let truthPath = args.value("truth") else {
            throw usage("tune needs --record RUN.json (or an event log) and --truth FILE")
        }
        let truth = try loadTruth(truthPath)
        let recording = try load(record, code: .usage)
        let rules = try args.value("rules").map { spec throws(CommandFailure) in try loadRules(spec) }
        if let rules { try check(truth, against: rules) }
        let tolerance = try args.number("tolerance", default: 3, in: 0...3600)
        if let problem = recording.clockProblem(truth, tolerance: tolerance) { throw CommandFailure(code: .usage, message: problem) }
        let cooldown = args.value("cooldown") == nil ? recording.cooldown ?? 3 : try args.number("cooldown", default: 3, in: 0...3600)
        let grid = Tuning.Grid()
        let clock = MonotonicClock()
        let started = clock.now()
        var replayed = 0, tried = 0
        var paste: [String] = []
        for condition in recording.conditions {
            let base = rules?.first { $0.condition == condition }?.settings ?? RuleSettings()
            let trials = Tuning.trials(
                condition, recording: recording, spans: truth.spans(of: condition) ?? [], base: base, cooldown: cooldown, grid: grid,
                tolerance: tolerance)
            replayed += trials.count * recording.frames.filter { $0.answers[condition] != nil }.count
            tried += trials.count
            let own = trials.first { $0.settings == base && $0.cooldown == (base.cooldown ?? cooldown) } ?? trials[0]
            print("\(condition) (\(Quantity.count(truth.spans(of: condition)?.count ?? 0, "span"))):")
            print("  now:  \(summary(own))")
            let better = trials.filter { Tuning.isBetter($0, than: own) }
            if better.isEmpty { print("  nothing better: no setting tried scores better than the rule's own") }
            for (n, trial) in better.prefix(3).enumerated() { print("  #\(n + 1):   \(summary(trial))") }
            if let best = better.first {
                let lines = Tuning.lines(best, defaultCooldown: cooldown)
                paste +=
                    ["  # \(condition): under its when:, beside its reaction"] + (lines.isEmpty ? ["  # (the defaults: remove its settings)"] : lines)
            }
        }
        let seconds = clock.now() - started
        if paste.isEmpty {
            print("\nNothing to change: every rule's own settings score best on this recording.")
        } else {
            print("\nThe settings to put under each rule's when: in the rules file (its reaction stays):\n" + paste.joined(separator: "\n"))
        }
        print(
            "\n\(recording.frames.count) frames, \(tried) settings tried over \(recording.conditions.count) rules: \(replayed) frames replayed in "
                + String(format: "%.3f s (%.0f frames a second)", seconds, Double(replayed) / max(seconds, 1e-9)))
    }

    private static func summary(_ t: Tuning.Trial) -> String {
        let s = t.score
        let delay = s.medianDelay.map { String(format: "median delay %.1f s", $0) } ?? "no delay"
        var words = t.settings.summary
        if t.settings.cooldown == nil { words = "cooldown \(Tuning.number(t.cooldown)) s" + (words.isEmpty ? "" : " · " + words) }
        return "\(s.missedSpans) of \(Quantity.count(s.spans, "span")) missed · \(Quantity.count(s.falseFires, "false fire")) · \(delay) · \(words)"
    }

    private static func value(_ name: String, in words: [String]) -> String? {
        for (i, w) in words.enumerated() {
            if w == "--\(name)", i + 1 < words.count { return words[i + 1] }
            if w.hasPrefix("--\(name)=") { return String(w.dropFirst(name.count + 3)) }
        }
        return nil
    }

    private static func optional(_ args: Arguments, _ name: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        args.value(name) == nil ? nil : try args.number(name, default: 0, in: range)
    }

    private static func loadTruth(_ path: String) throws(CommandFailure) -> TruthFile {
        do { return try TruthFile.load(path: path) } catch { throw CommandFailure(code: .usage, message: error.description) }
    }

    private static func loadRules(_ spec: String) throws(CommandFailure) -> [Rule] {
        do { return try RuleSpec.load(spec).rules.rules } catch { throw CommandFailure(code: .usage, message: error.description) }
    }

    private static func check(_ truth: TruthFile, against rules: [Rule]) throws(CommandFailure) {
        let problems = truth.problems(against: rules)
        guard problems.isEmpty else { throw CommandFailure(code: .usage, message: problems.map(\.description).joined(separator: "\n")) }
    }

    /// A recording from a log (its lines from byte `offset`: this run's) or a run record; one that
    /// cannot be read ends the command with `code` (a file the user named: a usage error).
    /// A log of several runs is scored on its last alone (one clock each), which is said.
    private static func load(_ path: String, from offset: Int = 0, code: ExitCode = .failure) throws(CommandFailure) -> Recording {
        let recording: Recording
        if offset > 0, let data = FileManager.default.contents(atPath: path), data.count > offset {
            let lines = String(decoding: data.dropFirst(offset), as: UTF8.self).split(separator: "\n")
            recording = Recording.events(lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        } else {
            do { recording = try Recording.load(path) } catch { throw CommandFailure(code: code, message: error.description) }
        }
        if recording.runs > 1 { Terminal.err("\(path) holds \(recording.runs) runs; the last one is scored (its own clock)") }
        return recording
    }

    private static func write(_ text: String, to path: String?) throws(CommandFailure) {
        guard let path else { return }
        do throws(SafeFile.Failure) { try SafeFile.write(text, to: path) } catch {
            throw CommandFailure(code: .failure, message: error.description)
        }
    }
}

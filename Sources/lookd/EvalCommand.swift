import Eval
import Foundation
import LookCore
import Platform
import Rules
import Settings

/// `lookd eval` scores rules against a labelled clip (or an event log); `lookd tune` replays a run's
/// answers through the firing rule for a grid of settings.
enum EvalCommand {
    static let help = """
        Usage: lookd eval \(SettingName.source) CLIP \(SettingName.rules) FILE \(SettingName.truth) FILE [options] [watch options]
               lookd eval --events FILE \(SettingName.truth) FILE [\(SettingName.rules) FILE] [options]

        Watches CLIP as lookd watch does (\(SettingName.pace) frames by default, no sounds, any engine, the gate
        included) and scores each rule against the truth file's spans (see docs/eval.md):
          answers   precision and recall of yes at the answered frames, also with min_confidence
          fires     true fires (inside a span, or within --tolerance after it ends), false fires an
                    hour, spans missed, and the delay from a span's start to its first fire
        --events FILE scores a service's event log instead (spans are then times of day, h:mm:ss).
        The run record stays in \(SettingName.record) DIR (default: the current folder) for lookd tune; the
        watch keeps no history and leaves no status file.

          \(SettingName.truth) FILE              the spans each rule's thing is in view (required)
          \(SettingName.camera) NAME             with a rules file of several cameras: the one scored (its clip, its
                                    rules), against its own truth; a table a camera is a run a camera
          --tolerance S             seconds after a span in which a fire still counts (default 3)
          --json FILE               the figures as JSON
          --html FILE               a self-contained report with a timeline a rule
          --min-recall R            exit 1 unless every rule fired on at least R (0-1) of its spans
          --max-false-per-hour N    exit 1 unless every rule made at most N false fires an hour
        """

    static let tuneHelp = """
        Usage: lookd tune \(SettingName.record) RUN.json|EVENTS.jsonl \(SettingName.truth) FILE [\(SettingName.rules) FILE] [--tolerance S] [\(SettingName.cooldown) S]

        Replays the recorded answers through the firing rule (cooldown, confirm N of M,
        min_confidence) for a grid of settings a rule, with no model call, and prints the settings
        that best trade missed spans and false fires, then delay, as rules-file lines to paste.
        \(SettingName.rules): the rules whose own settings are the starting point (default: the defaults, with
        the run's \(SettingName.cooldown), or \(SettingName.cooldown) S).
        """

    static let valued: Set<String> = [SettingName.truth.key, "tolerance", "json", "html", "min-recall", "max-false-per-hour", "events"]

    static func run(_ words: [String]) throws(CommandFailure) {
        // Eval's own options; the rest are the watch's. `--camera NAME` (no source) is eval's: the
        // camera of the rules file it scores; `--camera NAME=SOURCE` is the watch's.
        var words = words
        let picked = EvalCamera.take(&words)
        let (own, watch) = CommandWords.split(words, taking: valued)
        let args = try Arguments(own, valued: valued, switches: [])
        guard let truthPath = args.value(.truth) else { throw usage("eval needs \(SettingName.truth) FILE (the spans each rule's thing is in view)") }
        let truth = try loadTruth(truthPath)
        let tolerance = try args.number("tolerance", default: 3, in: 0...3600)
        // The reports' paths are checked before the watch, which can take long, not after it.
        for path in [args.value("json"), args.value("html")].compactMap({ $0 }) { try checkReport(path) }
        let rulesSpec = value(.rules, in: watch)
        // A rules file of several cameras: eval scores one of them (its rules, its clip) against the truth.
        let (camera, cameraWords): (CameraName, [String])
        do throws(SettingProblem) {
            (camera, cameraWords) = try EvalCamera.pick(
                rulesSpec, named: picked, sourceGiven: [.source, .camera].contains { value($0, in: watch) != nil })
        } catch {
            throw usage(error.text)
        }
        let rules = try rulesSpec.map { spec throws(CommandFailure) in try loadRules(spec, against: truth, camera: camera) }
        let recording: Recording
        if let events = args.value("events") {
            guard watch.allSatisfy({ $0 == "\(SettingName.rules)" || $0 == rulesSpec }) else {
                throw usage("eval --events scores a log; it takes no watch options but \(SettingName.rules)")
            }
            recording = try load(events, code: .usage)
        } else {
            guard rules != nil else { throw usage("eval needs \(SettingName.rules) FILE, as a watch does") }
            recording = try watchAndRecord(watch + cameraWords, truth: truthPath, ownLog: value(.log, in: watch) != nil)
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
        if !report.failures.isEmpty {
            throw CommandFailure(code: .failure, message: "below the standard:\n  " + report.failures.joined(separator: "\n  "))
        }
    }

    /// A report's path, checked before the watch: its folder can be written, and it is no link or device.
    private static func checkReport(_ path: String) throws(CommandFailure) {
        let folder = FilePath.folder(of: path)
        if let problem = WritableFolder.problem(folder.isEmpty ? "." : folder, what: "folder for \(path)", create: false) {
            throw CommandFailure(code: .usage, message: problem)
        }
        do throws(SafeFile.Failure) { try SafeFile.check(path) } catch { throw CommandFailure(code: .usage, message: error.description) }
    }

    /// Runs the watch `run` (every frame, no sound, no history, no status left behind; the truth's
    /// spans on its page) and reads its recording back from its event log (a temporary one unless
    /// the user gave theirs: `ownLog`).
    private static func watchAndRecord(_ words: [String], truth truthPath: String, ownLog: Bool) throws(CommandFailure) -> Recording {
        var run = words
        let status = (NSTemporaryDirectory() as NSString).appendingPathComponent("lookd-eval-\(getpid())-status.json")
        let defaults = [(SettingName.pace, "frames"), (.state, "off"), (.history, "off"), (.status, status)]
        for (name, given) in defaults where value(name, in: run) == nil { run += ["\(name)", given] }
        defer { try? FileManager.default.removeItem(atPath: status) }
        if !run.contains("\(SettingName.noSound)") { run.append("\(SettingName.noSound)") }
        run += ["\(SettingName.truth)", truthPath]
        let log = value(.log, in: run) ?? (NSTemporaryDirectory() as NSString).appendingPathComponent("lookd-eval-\(getpid()).jsonl")
        if value(.log, in: run) == nil { run += ["\(SettingName.log)", log] }
        defer { if !ownLog { try? FileManager.default.removeItem(atPath: log) } }
        let before = (try? FileManager.default.attributesOfItem(atPath: log)[.size] as? Int) ?? 0
        try WatchCommand.run(run)
        return try load(log, from: before)
    }

    static func tune(_ words: [String]) throws(CommandFailure) {
        let args = try Arguments(words, valued: Set([SettingName.record, .truth, .rules, .cooldown].map(\.key) + ["tolerance"]), switches: [])
        guard let record = args.value(.record), let truthPath = args.value(.truth) else {
            throw usage("tune needs \(SettingName.record) RUN.json (or an event log) and \(SettingName.truth) FILE")
        }
        let truth = try loadTruth(truthPath)
        let recording = try load(record, code: .usage)
        let rules = try args.value(.rules).map { spec throws(CommandFailure) in try loadRules(spec, against: truth) }
        let tolerance = try args.number("tolerance", default: 3, in: 0...3600)
        if let problem = recording.clockProblem(truth, tolerance: tolerance) { throw CommandFailure(code: .usage, message: problem) }
        // --cooldown is read as the watch's own declaration reads it (its range, its words, its message).
        let declared = WatchSettings.declared
        let given = args.given(declared.infos.filter { $0.name == SettingName.cooldown.key })
        var cooldown = recording.cooldown ?? 3
        do { cooldown = given.isEmpty ? cooldown : try declared.resolve(given, over: WatchSetup()).watch.cooldown } catch {
            throw usage(error.text)
        }
        print(Tuning.report(recording, truth: truth, rules: rules, cooldown: cooldown, tolerance: tolerance, clock: MonotonicClock()))
    }

    private static func value(_ name: SettingName, in words: [String]) -> String? {
        for (i, w) in words.enumerated() {
            if w == "\(name)", i + 1 < words.count { return words[i + 1] }
            if w.hasPrefix("\(name)=") { return String(w.dropFirst(name.key.count + 3)) }
        }
        return nil
    }

    private static func optional(_ args: Arguments, _ name: String, in range: ClosedRange<Double>) throws(CommandFailure) -> Double? {
        args.value(name) == nil ? nil : try args.number(name, default: 0, in: range)
    }

    private static func loadTruth(_ path: String) throws(CommandFailure) -> TruthFile {
        do { return try TruthFile.load(path: path) } catch { throw CommandFailure(code: .usage, message: error.description) }
    }

    /// The rules of `spec`, which `truth` must name rule by rule.
    private static func loadRules(_ spec: String, against truth: TruthFile, camera: CameraName = .only) throws(CommandFailure) -> [Rule] {
        let (rules, all): ([Rule], [Rule])
        let set: RuleSet
        do { set = try RuleSpec.load(spec).rules } catch { throw CommandFailure(code: .usage, message: error.description) }
        (all, rules) = (set.rules, set.forCamera(camera).rules)
        // A truth names what its clip shows: a thing another camera's rule looks for is no typo.
        let problems = truth.problems(against: all)
        guard problems.isEmpty else { throw CommandFailure(code: .usage, message: problems.map(\.description).joined(separator: "\n")) }
        return rules
    }

    /// A recording from a log (its lines from byte `offset`: this run's) or a run record; one that
    /// cannot be read ends the command with `code` (a file the user named: a usage error).
    /// A log of several runs is scored on its last alone (one clock each), which is said.
    private static func load(_ path: String, from offset: Int = 0, code: ExitCode = .failure) throws(CommandFailure) -> Recording {
        let recording: Recording
        do { recording = try Recording.load(path, from: offset) } catch { throw CommandFailure(code: code, message: error.description) }
        if recording.runs > 1 { Terminal.err("\(path) holds \(recording.runs) runs; the last one is scored (its own clock)") }
        return recording
    }

    private static func write(_ text: String, to path: String?) throws(CommandFailure) {
        guard let path else { return }
        do throws(SafeFile.Failure) { try SafeFile.write(text, to: path) } catch { throw CommandFailure(code: .failure, message: error.description) }
    }
}

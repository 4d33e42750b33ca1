import Capture
import Foundation
import Grounding
import LookCore
import Rules

/// Everything `lookd watch` was asked to do, read from its command line.
struct WatchSettings {
    var source: String
    var rulesSpec: String
    var sourceOptions = SourceOpener.Options()
    var cooldown = 3.0
    var maxTokens = 32
    var seconds: Double?
    var delay = 0.0
    var trigger: String?
    var framesDir: String?
    var logPath: String?
    var recordDir = "."
    /// Seconds an effect holds the frame the model answered (`--hold`).
    var hold = 3.0
    /// Where an effect's place comes from (`--cells`), in words with `--cell-words`, on a `--grid`.
    var cells = PlaceForm.box
    var cellWords = false
    var grid = false
    /// `--status FILE`: where the status file goes (default: the runtime directory; StatusFile).
    var statusPath: String?
    /// `--watch-rules`: reload the rules when the file changes, as on SIGHUP.
    var watchRules = false
    /// Where effects' pictures go (`--effects DIR`; default: `--frames` if given, else the record folder).
    var effectsDir: String?
    /// Whether sounds, spoken lines and timers' sounds play (`--no-sound` turns them off).
    var sound = true
    /// What each photo shows, rule by rule, keyed by the photo's name without its extension.
    var truth: [String: [Answer]] = [:]

    static let valued: Set<String> = ["source", "rules", "model", "mmproj", "cooldown", "tokens", "seconds", "delay",
                                      "trigger", "pace", "every", "hold", "photo-seconds", "size", "frames", "log", "record",
                                      "truth", "context", "threads", "cells", "effects", "status", "camera-size"]
    static let switches: Set<String> = ["no-sound", "cell-words", "grid", "watch-rules"]

    init(_ args: Arguments) throws(CommandFailure) {
        guard let source = args.value("source") else { throw usage("watch needs --source /dev/video0|FILE|URL|DIR") }
        guard let rules = args.value("rules") else { throw usage("watch needs --rules FILE or --rules \"a chessboard=chime|…\"") }
        guard args.positional.isEmpty else { throw usage("watch takes options only; \"\(args.positional[0])\" is not one") }
        self.source = source
        self.rulesSpec = rules
        cooldown = try Self.number(args, "cooldown", default: 3, in: 0...3600)
        maxTokens = try args.integer("tokens", default: 32, in: 1...1024)
        seconds = args.value("seconds") == nil ? nil : try Self.number(args, "seconds", default: 0, in: 0.001...1e9)
        delay = try Self.number(args, "delay", default: 0, in: 0...86400)
        trigger = args.value("trigger")
        framesDir = args.value("frames")
        logPath = args.value("log")
        recordDir = args.value("record") ?? "."
        sound = !args.has("no-sound")
        hold = try Self.number(args, "hold", default: 3, in: 0...60)
        sourceOptions.photoSeconds = try Self.number(args, "photo-seconds", default: 4.5, in: 0...86400)
        let form = args.value("cells") ?? "box"
        guard let cells = PlaceForm(rawValue: form) else { throw usage("--cells is box, ask, batch or none, not \"\(form)\"") }
        self.cells = cells
        cellWords = args.has("cell-words")
        if cellWords && cells != .ask { throw usage("--cell-words goes with --cells ask") }
        grid = args.has("grid")
        effectsDir = args.value("effects")
        statusPath = args.value("status")
        watchRules = args.has("watch-rules")
        sourceOptions.maxSide = try args.integer("size", default: 448, in: 32...4096)
        sourceOptions.cameraMaxSide = try args.integer("camera-size", default: 1280, in: 32...8192)
        switch args.value("pace") ?? "realtime" {
        case "realtime":
            guard args.value("every") == nil else { throw usage("--every goes with --pace frames") }
            sourceOptions.pace = .realtime
        case "frames": sourceOptions.pace = .frames(every: try Self.number(args, "every", default: 1, in: 0.001...3600))
        case let other: throw usage("--pace is realtime or frames, not \"\(other)\"")
        }
        if let t = args.value("truth") { truth = try Self.truth(t) }
    }

    /// The rules `--rules` names.
    func loadRules() throws(RulesError) -> (RuleSet, source: String) {
        let loaded = try RuleSpec.load(rulesSpec)
        return (loaded.rules, loaded.source)
    }

    private static func number(_ args: Arguments, _ name: String, default fallback: Double,
                               in range: ClosedRange<Double>) throws(CommandFailure) -> Double {
        guard let text = args.value(name) else { return fallback }
        guard let x = Double(text), range.contains(x) else {
            throw usage("--\(name) must be a number from \(JSON.number(range.lowerBound).text()) to \(JSON.number(range.upperBound).text()), not \"\(text)\"")
        }
        return x
    }

    /// `sign:no,no,yes;object:yes,no,no` → ["sign": [.no, .no, .yes], …].
    static func truth(_ text: String) throws(CommandFailure) -> [String: [Answer]] {
        var table: [String: [Answer]] = [:]
        for entry in text.split(separator: ";") {
            let parts = entry.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { throw usage("--truth is photo:yes,no,…;photo:…, not \"\(entry)\"") }
            var answers: [Answer] = []
            for word in parts[1].split(separator: ",") {
                switch word.trimmingCharacters(in: .whitespaces).lowercased() {
                case "yes", "y": answers.append(.yes)
                case "no", "n": answers.append(.no)
                default: throw usage("--truth answers are yes or no, not \"\(word)\"")
                }
            }
            table[parts[0].trimmingCharacters(in: .whitespaces)] = answers
        }
        return table
    }
}

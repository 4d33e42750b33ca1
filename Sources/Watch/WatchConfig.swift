import Capture
import Foundation
import Grounding
import LookCore
import Rules

/// What a watch runs with: the source, the rules, the firing and effect settings and where records
/// go. The command line builds one (lookd's WatchSettings); tests build one directly.
public struct WatchConfig: Sendable {
    public var source: String
    /// `--rules`: a rules file, or rules inline.
    public var rulesSpec: String
    public var sourceOptions = SourceOpener.Options()
    public var cooldown = 3.0
    public var maxTokens = 32
    public var seconds: Double?
    public var delay = 0.0
    public var trigger: String?
    public var framesDir: String?
    public var logPath: String?
    public var recordDir = "."
    /// Seconds an effect holds the frame the model answered (`--hold`).
    public var hold = 3.0
    /// Where an effect's place comes from (`--cells`), in words with `--cell-words`, on a `--grid`.
    public var cells = PlaceForm.box
    public var cellWords = false
    public var grid = false
    /// `--status FILE`: where the status file goes (default: the runtime directory; StatusFile).
    public var statusPath: String?
    /// `--watch-rules`: reload the rules when the file changes, as on SIGHUP.
    public var watchRules = false
    /// Where effects' pictures go (`--effects DIR`; default: `--frames` if given, else the record folder).
    public var effectsDir: String?
    /// Whether sounds, spoken lines and timers' sounds play (`--no-sound` turns them off).
    public var sound = true
    /// What each photo shows, rule by rule, keyed by the photo's name without its extension.
    public var truth: [String: [Answer]] = [:]

    public init(source: String, rules: String) {
        self.source = source
        self.rulesSpec = rules
    }

    /// The rules `rulesSpec` names.
    public func loadRules() throws(RulesError) -> (RuleSet, source: String) {
        let loaded = try RuleSpec.load(rulesSpec)
        return (loaded.rules, loaded.source)
    }

    /// The frame's prompt for `rules` (with the batch cell instruction for `--cells batch`).
    func prompt(for rules: [Rule]) -> String {
        WatchPrompt.text(for: rules, extra: cells == .batch ? PlaceQuestions.batch : nil)
    }

    /// The event log's path: `--log`, else `lookd-events.jsonl` in the record folder.
    public var eventLogPath: String { logPath ?? (recordDir as NSString).appendingPathComponent("lookd-events.jsonl") }
}

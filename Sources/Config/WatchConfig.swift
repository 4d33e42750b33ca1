import Capture
import Foundation
import Gate
import Grounding
import LookCore
import ReactionDomain
import Records
import Rules

/// What a watch runs with: the source, the rules, the firing and effect settings and where records
/// go. Each field that a setting sets is declared, with its flag, help and default, in
/// Sources/Settings (WatchSettings); tests build one directly.
public struct WatchConfig: Sendable {
    public var source: String
    /// The camera it watches (its rules are those that name it or none; in a watch of cameras,
    /// every event line names it); `CameraName.only`: a watch of one source.
    public var camera = CameraName.only
    /// `--rules`: a rules file, or rules inline.
    public var rulesSpec: String
    public var sourceOptions = SourceOpener.Options()
    public var cooldown = 3.0
    /// nil: as many answer tokens as the rules need (`AnswerBudget.defaultTokens`, at least 32).
    public var maxTokens: Int?
    public var seconds: Double?
    public var delay = 0.0
    public var trigger: String?
    public var framesDir: String?
    public var logPath: String?
    public var recordDir = "."
    /// Where the rules' switches and counts are kept across restarts (nil: not kept).
    public var statePath: String?
    public static var stateFile: String { KeptState.fileName }
    public var hold = 3.0
    public var cells = PlaceForm.box
    public var cellWords = false
    public var grid = false
    public var watchRules = false
    public var effectsDir: String?
    public var snapshotsDir: String?
    public var keepSnapshots = "1000"
    public var sound = true
    /// Engines that cannot constrain their answers (the scripted one) answer in free text.
    public var constrain = true
    /// `gateMode` nil: the gate is on for cameras, streams and real-time video (`gateEnabled(for:)`).
    public var gate = ChangeGate.Settings()
    public var gateMode: Bool?
    /// The vision tower recomputes only what changed in a camera's picture (`TowerReuse`); off:
    /// every picture is encoded whole.
    public var reuseOn = true
    public var reuse = TowerReuse()
    /// This instance's name: `LOOKD_INSTANCE` for commands (and MQTT's topics, in the outputs' settings).
    public var name = WatchConfig.defaultName
    /// Where a fire is reviewed (the page's `/history`, or the page), when `--http` is on.
    public var reviewPage: String?
    public var commands = CommandSettings()
    public var posts = PostSettings()
    /// At most `describeLimit` fires of one frame are described (the rest are skipped and counted).
    public var describeAll = false
    public var describeTokens = 40
    public var describeLimit = 3
    /// What each photo shows, rule by rule, keyed by the photo's name without its extension.
    public var truth: [String: [Answer]] = [:]
    /// Reads the rules file's `settings:` again at a reload (nil: the file's settings stay as at the start).
    public var settingsReader: (any SettingsRereader<WatchConfig>)?
    /// Every watch setting in force at the start as `lookd check --json` lists it (its value, a
    /// password or token masked, and where it came from), made from the declarations by the root;
    /// the run record's header keeps it.
    public var settingsInForce: JSON = .null

    public init(source: String, rules: String) {
        self.source = source
        self.rulesSpec = rules
    }

    /// The host's name, up to its first dot (`lookd` when it has none).
    public static var defaultName: String {
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        return host.isEmpty || host == "localhost" ? "lookd" : host
    }

    /// The frame's prompt for `rules` (with the batch cell instruction for `--cells batch`).
    public func prompt(for rules: [Rule]) -> String {
        WatchPrompt.text(for: rules, extra: cells == .batch ? PlaceQuestions.batch : nil)
    }

    /// Whether the change gate skips frames of `source`.
    public func gateEnabled(for source: SourceInfo) -> Bool {
        if let gateMode { return gateMode }
        switch source.kind {
        case "camera", "stream": return true
        case "video": if case .realtime = sourceOptions.pace { return true } else { return false }
        default: return false
        }
    }

    /// The answer tokens a frame with `rules` rules gets.
    public func answerTokens(rules: Int) -> Int {
        maxTokens ?? AnswerBudget.defaultTokens(rules: rules, cells: cells == .batch)
    }

    /// Why `rules` cannot be asked of `model` on frames of `width` × `height` (the question and
    /// the answer they need do not fit the context); nil when they fit or the engine has no limit.
    public func budgetProblem(_ rules: [Rule], model: any InputCounting, width: Int, height: Int) -> String? {
        let size = fittedSize(width: width, height: height, maxSide: sourceOptions.maxSide)
        guard let need = model.inputTokens(prompt: prompt(for: rules), width: size.width, height: size.height) else { return nil }
        let answer = max(answerTokens(rules: rules.count), AnswerBudget.answerTokens(rules: rules.count, cells: cells == .batch))
        return AnswerBudget.problem(rules: rules.count, inputTokens: need.input, answerTokens: answer, context: need.context)
    }

    /// A warning when `--tokens` is too small for every rule to be answered in full.
    public func tokensWarning(rules: Int) -> String? {
        guard let given = maxTokens else { return nil }
        let need = AnswerBudget.answerTokens(rules: rules, cells: cells == .batch)
        guard given < need else { return nil }
        let answered = AnswerBudget.rulesAnswered(byTokens: given, cells: cells == .batch)
        return
            "\(SettingName.tokens) \(given) leaves room to answer about \(answered) of the \(rules) rules; the rest may stay ? (\(need) tokens answer them all; leave \(SettingName.tokens) out to get that)"
    }

    /// The event log's path: `--log`, else `lookd-events.jsonl` in the record folder.
    public var eventLogPath: String { logPath ?? (recordDir as NSString).appendingPathComponent("lookd-events.jsonl") }

    /// Where a run's records go, for its first lines: the event log (`eventLog`, nil when there is
    /// none), the run record (`record`), the snapshots, the effects and the kept state.
    public func recordsLine(eventLog: String?, record: String) -> String {
        var parts = [eventLog.map { "events in \($0)" } ?? "no event log", "the run record at \(record) when it stops"]
        if let dir = snapshotsDir { parts.append("snapshots in \(dir)") }
        if let dir = effectsDir { parts.append("effects in \(dir)") }
        if let path = statePath { parts.append("switches and counts kept in \(path)") }
        return "records: " + parts.joined(separator: "; ")
    }
}

import LookCore
import Rules
import VLM

/// Reads a rules file's `settings:` again at a reload, as the start read them (lookd's declarations
/// do it): the settings a reload may change are taken from the file, the others stay.
public protocol WatchSettingsReader: Sendable {
    func reread(file: [String: GivenSetting], running: WatchConfig) throws(RulesError) -> SettingsReread
}

/// What a reload's settings became: the watch's settings with the file's live changes, which
/// changed live, and which changed in the file but need a restart.
public struct SettingsReread: Sendable {
    public var config: WatchConfig
    public var applied: [String]
    public var needRestart: [String]

    public init(config: WatchConfig, applied: [String] = [], needRestart: [String] = []) {
        self.config = config
        self.applied = applied
        self.needRestart = needRestart
    }
}

/// The rules a watch asks and the settings they run with, made once from a rules file: at the start
/// and at each reload (only the reload's swap differs). The budget is checked against the model's
/// context on the source's frames; the disabled rules and gate masks come with it.
struct RulesInForce {
    let set: RuleSet
    let source: String
    let config: WatchConfig
    /// Why `--tokens` is too small for these rules, when it is.
    let tokensWarning: String?
    let settings: SettingsReread?

    var gateMasks: [GateMask] { config.gate.masks + set.gateMasks }
    var disabled: Set<String> { Set(set.disabled.map(\.condition)) }

    /// `set` (from `source`) with `config`, or with what `config.settingsReader` makes of the
    /// file's settings when `reread`; the rules must fit `model`'s context on `info`'s frames.
    static func make(
        _ set: RuleSet, source: String, config: WatchConfig, reread: Bool, model: any VisionLanguageModel, info: SourceInfo
    ) throws(RulesError) -> RulesInForce {
        let settings =
            try reread ? config.settingsReader.map { reader throws(RulesError) in try reader.reread(file: set.settings, running: config) } : nil
        let config = settings?.config ?? config
        if let problem = config.budgetProblem(set.rules, model: model, width: info.width, height: info.height) {
            throw RulesError(source: source, problem: problem)
        }
        return RulesInForce(
            set: set, source: source, config: config, tokensWarning: config.tokensWarning(rules: set.rules.count), settings: settings)
    }
}

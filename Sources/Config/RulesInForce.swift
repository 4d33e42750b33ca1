import Foundation
import LookCore
import ReactionDomain
import Rules

/// The rules a watch asks and the settings they run with, made once from a rules file: at the start
/// and at each reload (only the reload's swap differs). The budget is checked against the model's
/// context on the source's frames; the disabled rules and gate masks come with it.
public struct RulesInForce {
    public let set: RuleSet
    public let source: String
    public let config: WatchConfig
    /// Why `--tokens` is too small for these rules, posts that ask for a snapshot none is taken for,
    /// and posts and commands that wait for a clip none is written for.
    public let warnings: [String]
    public let settings: SettingsReread<WatchConfig>?

    public var gateMasks: [GateMask] { config.gate.masks + set.gateMasks }
    public var disabled: Set<String> { Set(set.disabled.map(\.condition)) }

    /// `set` (from `source`) with `config`, or with what `config.settingsReader` makes of the
    /// file's settings when `reread`; the rules must fit `model`'s context on `info`'s frames.
    public static func make(
        _ set: RuleSet, source: String, config: WatchConfig, reread: Bool, model: any InputCounting, info: SourceInfo
    ) throws(RulesError) -> RulesInForce {
        var settings: SettingsReread<WatchConfig>?
        do throws(SettingProblem) {
            settings =
                try reread
                ? config.settingsReader.map { reader throws(SettingProblem) in try reader.reread(file: set.settings, running: config) } : nil
        } catch {
            throw RulesError(source: source, problem: error.text)
        }
        let config = settings?.config ?? config
        if let problem = config.budgetProblem(set.rules, model: model, width: info.width, height: info.height) {
            throw RulesError(source: source, problem: problem)
        }
        if let problem = snapshotProblem(set.rules, source: source, config: config) { throw problem }
        let snapshotless = config.snapshotsDir == nil ? set.rules : []
        var warnings = config.tokensWarning(rules: set.rules.count).map { [$0] } ?? []
        for rule in snapshotless {
            guard let post = rule.reaction.as(PostReaction.self)?.post, post.snapshot else { continue }
            warnings.append(
                "\"\(rule.condition)\" → post asks for the snapshot, and none is taken (\(SettingName.snapshots) is off): it posts without the picture"
            )
        }
        for rule in set.rules where rule.reaction.waitsForClip && config.posts.clipWait == nil {
            warnings.append(
                "\"\(rule.condition)\" → \(rule.reaction.kind) waits for the fire's clip, and clips are off (\(SettingName.clips) on writes them): "
                    + "it goes at once, without one")
        }
        return RulesInForce(set: set, source: source, config: config, warnings: warnings, settings: settings)
    }

    /// A rule whose reaction needs the fire's snapshot when none is taken (`lookd check` asks too).
    public static func snapshotProblem(_ rules: [Rule], source: String, config: WatchConfig) -> RulesError? {
        guard config.snapshotsDir == nil, let rule = rules.first(where: \.reaction.needsSnapshot) else { return nil }
        return RulesError(
            source: source, line: rule.line, column: rule.column,
            problem: "\"\(rule.condition)\" → \(rule.reaction.kind) sends the fire's snapshot, and none is taken: turn snapshots on "
                + "(settings: snapshots: DIR, or \(SettingName.snapshots) DIR), or write picture: false")
    }
}

extension WatchConfig {
    /// The rules that send the fire's snapshot (a notification's picture) get one: `--snapshots`,
    /// else `snapshots/` in the record folder, taken for them rather than the rule refused.
    public mutating func takeSnapshots(for rules: [Rule]) {
        guard snapshotsDir == nil, rules.contains(where: \.reaction.needsSnapshot) else { return }
        snapshotsDir = (recordDir as NSString).appendingPathComponent("snapshots")
    }
}

import Config
import Foundation
import LookCore
import Rules

/// The reload stage: before each frame it re-reads the rules when asked (SIGHUP) or, with
/// `--watch-rules`, when the file changed. A valid file replaces the rules (those whose words are
/// unchanged keep their state) and its settings; an invalid one is rejected with its file, line and
/// column, and the old rules stay.
final class ReloadStage {
    let parts: LoopParts
    /// SIGHUP's request, which the loop takes before its next frame.
    let requests: ReloadRequest
    /// Accepted reloads so far in the run.
    private(set) var count = 0
    private var stamp: Date?

    enum Result {
        case accepted(RulesInForce)
        case rejected
    }

    init(parts: LoopParts, requests: ReloadRequest, config: WatchConfig) {
        (self.parts, self.requests) = (parts, requests)
        stamp = Self.modified(config.rulesSpec)
    }

    /// The reload's result when one was asked for or the file changed; nil otherwise.
    func reloadIfAsked(_ book: RuleBook, config: WatchConfig, info: SourceInfo) -> Result? {
        var why = "SIGHUP"
        if requests.take() {
            stamp = Self.modified(config.rulesSpec)
        } else {
            guard config.watchRules, let changed = Self.modified(config.rulesSpec), changed != stamp else { return nil }
            (why, stamp) = ("the file changed", changed)
        }
        let events = parts.events
        events.emit(.reloading)
        do throws(RulesError) {
            let (set, source) = try config.loadRules()
            let inForce = try RulesInForce.make(set, source: source, config: config, reread: true, model: parts.model, info: info)
            for warning in inForce.warnings { Log.shared.warning(warning) }
            let kept = book.adopt(set.rules, source: source)
            parts.reactor.keep(only: Set(set.rules.map(\.condition)))
            count += 1
            events.emit(.rules(.reloaded(set.rules, why: why, source: source, kept: kept, warnings: set.warnings, disabled: set.disabled)))
            for warning in set.warnings { Log.shared.warning(warning) }
            Log.shared.notice("rules reloaded from \(source) (\(why)): \(Quantity.count(set.rules.count, "rule")), \(kept) kept their state")
            if let changed = inForce.settings, !changed.applied.isEmpty {
                Log.shared.notice("settings changed by the reload: \(changed.applied.joined(separator: ", "))")
            }
            for name in inForce.settings?.needRestart ?? [] {
                Log.shared.warning("\(name) changed in \(source), but it needs a restart (systemctl restart lookd): the old value stays")
            }
            return .accepted(inForce)
        } catch {
            events.emit(.rules(.rejected(why: why, source: config.rulesSpec, error: error.description)))
            // Every camera reloads the one file: its problem is said once in the journal.
            let text = "rules not reloaded: \(error.description); the old rules stay"
            if Self.said.first(text, at: parts.clock.now(), within: 10) { Log.shared.error(text) }
            return .rejected
        }
    }

    private static let said = RecentlySaid()

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

import Foundation
import LookCore
import Records
import Rules

extension WatchLoop {
    /// Before each frame: re-reads the rules when asked (SIGHUP) or, with `--watch-rules`, when the
    /// file changed. A valid file replaces the rules (those whose words are unchanged keep their
    /// state); an invalid one is rejected with its file, line and column, and the old rules stay.
    /// Returns whether new rules were taken (they need answers: the change gate asks the next frame).
    @discardableResult
    func reloadIfAsked() -> Bool {
        var why = "SIGHUP"
        if !reloads.take() {
            guard rulesFileChanged() else { return false }
            why = "the file changed"
        }
        events.emit(.reloading)
        do throws(RulesError) {
            let (set, source) = try config.loadRules()
            let inForce = try RulesInForce.make(set, source: source, config: config, reread: true, model: model, info: self.source.info)
            for warning in inForce.warnings { Log.shared.warning(warning) }
            let kept = adopt(set.rules, source: source)
            take(inForce)
            reactor.keep(only: Set(set.rules.map(\.condition)))
            reloadCount += 1
            events.emit(.rules(.reloaded(set.rules, why: why, source: source, kept: kept, warnings: set.warnings, disabled: set.disabled)))
            for warning in set.warnings { Log.shared.warning(warning) }
            Log.shared.notice("rules reloaded from \(source) (\(why)): \(set.rules.count) rules, \(kept) kept their state")
            if let changed = inForce.settings, !changed.applied.isEmpty {
                Log.shared.notice("settings changed by the reload: \(changed.applied.joined(separator: ", "))")
            }
            for name in inForce.settings?.needRestart ?? [] {
                Log.shared.warning("\(name) changed in \(source), but it needs a restart (systemctl restart lookd): the old value stays")
            }
            events.emit(.reloaded(accepted: true, snapshot))
            return true
        } catch {
            events.emit(.rules(.rejected(why: why, source: config.rulesSpec, error: error.description)))
            Log.shared.error("rules not reloaded: \(error.description); the old rules stay")
        }
        events.emit(.reloaded(accepted: false, snapshot))
        return false
    }
}

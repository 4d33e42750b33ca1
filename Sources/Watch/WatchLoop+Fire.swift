import Capture
import Foundation
import LookCore
import Reactions
import Records
import Rules

extension WatchLoop {
    /// Fires rule `i`: its reaction and its `fire` line; an effect also holds the frame and draws its
    /// edit there, and its `hold` line follows when the hold ends. `number` counts the fire in the run.
    func fire(rule i: Int, number: Int, frame index: Int, captured frame: Frame, shown: RGBImage, place: Place?) -> FireOutcome {
        let rule = rules[i]
        let state = machine.states[i]
        // The snapshot is saved first: commands, posts and MQTT are handed its path.
        let snapshot = snapshots.flatMap { $0.save(source.original() ?? frame.image, fire: number, epoch: epoch) }
        lastSnapshot = snapshot ?? lastSnapshot
        let context = FireContext(
            fire: number, rule: i + 1, condition: rule.condition, reaction: rule.reaction.name, frame: index, time: wallClock(),
            edge: state.lastEdge?.rawValue ?? "appear", confidence: state.confidence, snapshot: snapshot, box: place?.editBox,
            instance: config.name)
        let result = reactor.perform(rule.reaction, fire: context)
        let now = clock.now()
        var fire = FireOutcome(
            number: number, rule: i, condition: rule.condition, reaction: rule.reaction, frame: index,
            latency: now - frame.captured, sinceChange: frame.shownAt.map { now - $0 }, result: result,
            place: place, holdSetting: config.hold)
        fire.edge = context.edge
        fire.confidence = context.confidence
        fire.snapshot = snapshot
        fire.context = context
        if rule.settings.window > 1 {
            let agreeing = state.recent.filter { $0 == (fire.edge == "appear") }.count
            fire.confirmed = "\(agreeing) of \(state.recent.count)"
        }
        events.emit(.fired(fire, rule: rule, count: rule.reaction.isCount ? reactor.count(for: rule.condition) : nil))
        // A log: rule's line is in the fire's line (one journal line a fire).
        let outcome = rule.reaction == .log ? "log: \(result.note ?? "")" : result.outcome
        Log.shared.notice("fire: \(rule.condition) → \(rule.reaction.name) (frame \(index); \(outcome))")
        guard case .effect(let effect, _) = rule.reaction else { return fire }
        let hold = EffectHold(source: source, clock: clock, seconds: config.hold)
        let folder = effectsFolder()
        fire.hold = hold.run(
            EffectRenderer(effect: effect, box: place?.editBox, frame: shown),
            png: (folder as NSString).appendingPathComponent("catch\(number).png"),
            apng: (folder as NSString).appendingPathComponent("edit\(number).apng"))
        events.emit(.held(fire))
        if let error = fire.hold?.renderError { Log.shared.error("effect \(effect.rawValue) on frame \(index): \(error)") }
        return fire
    }

    /// Where effects' pictures go: `--effects`, else `--frames`, else `watch-<epoch>-effects` in the
    /// record folder; made when the first effect fires.
    func effectsFolder() -> String {
        let folder =
            config.effectsDir ?? config.framesDir
            ?? (config.recordDir as NSString).appendingPathComponent("watch-\(epoch)-effects")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}

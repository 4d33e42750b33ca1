import Capture
import Config
import LookCore
import Media
import ReactionDomain
import Reactions
import Records
import Rules

/// The fire stage: a fired rule's snapshot, its reaction, its `fire` line and, for an effect, its
/// hold. It counts the run's fires and remembers the latest snapshot.
final class FireStage {
    let parts: LoopParts
    let source: any FrameSource
    /// `--snapshots`: where each fire's frame goes.
    private let snapshots: Snapshots?
    private let holds: HoldStage
    private(set) var count = 0
    private(set) var lastSnapshot: String?

    init(parts: LoopParts, source: any FrameSource, config: WatchConfig, epoch: Int) {
        (self.parts, self.source) = (parts, source)
        snapshots = config.snapshotsDir.map { Snapshots(dir: $0, keep: Snapshots.Retention.parse(config.keepSnapshots) ?? .count(1000)) }
        holds = HoldStage(source: source, clock: parts.clock, stop: parts.stop, epoch: epoch)
    }

    /// Fires rule `i` (whose state `state` let it through) on `frame`, shown as `shown`.
    func fire(rule i: Int, of rules: [Rule], state: RuleMachine.State, frame: Frame, index: Int, shown: RGBImage, place: Place?, config: WatchConfig)
        -> (fire: FireOutcome, hold: HoldOutcome?)
    {
        count += 1
        let rule = rules[i]
        let reactor = parts.reactor
        // The snapshot is saved first: commands, posts and MQTT are handed its path.
        let snapshot = snapshots.flatMap { $0.save(source.original() ?? frame.image, fire: count, epoch: holds.epoch, now: parts.clock.date()) }
        lastSnapshot = snapshot ?? lastSnapshot
        var context = FireContext(
            fire: count, rule: i + 1, condition: rule.condition, reaction: rule.reaction.name, frame: index, time: parts.clock.date(),
            edge: state.lastEdge?.rawValue ?? "appear", confidence: state.confidence, snapshot: snapshot, box: place?.editBox,
            instance: config.name)
        context.page = config.reviewPage
        let result = reactor.perform(rule.reaction, fire: context)
        let now = parts.clock.now()
        let agreeing = state.recent.filter { $0 == (context.edge == "appear") }.count
        let fire = FireOutcome(
            number: count, rule: i, condition: rule.condition, reaction: rule.reaction, frame: index,
            latency: now - frame.captured, sinceChange: frame.shownAt.map { now - $0 }, result: result,
            place: place, holdSetting: config.hold, edge: context.edge,
            confirmed: rule.settings.window > 1 ? "\(agreeing) of \(state.recent.count)" : nil, confidence: context.confidence,
            snapshot: snapshot, context: context)
        parts.events.emit(.fired(fire, rule: rule, count: rule.reaction.isCount ? reactor.count(for: rule.condition) : nil))
        // A log: rule's line is in the fire's line (one journal line a fire).
        let outcome = rule.reaction == .log ? "log: \(result.note ?? "")" : result.outcome
        Log.shared.notice("fire: \(rule.condition) → \(rule.reaction.name) (frame \(index); \(outcome))")
        guard let effect = rule.reaction.as(EffectReaction.self)?.effect else { return (fire, nil) }
        parts.turn.release() // the other cameras ask the model while this one holds its frame
        let hold = holds.run(EffectRenderer(effect: effect, box: place?.editBox, frame: shown), fire: count, config: config)
        parts.events.emit(.held(hold, fire: fire))
        if let error = hold.renderError { Log.shared.error("effect \(effect.rawValue) on frame \(index): \(error)") }
        return (fire, hold)
    }
}

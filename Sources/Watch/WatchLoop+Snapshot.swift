import LookCore
import Records

extension WatchLoop {
    /// What the loop shows the world: the rules and their states, the latest frame, the counts.
    public var snapshot: WatchSnapshot {
        WatchSnapshot(
            rows: book.rows(reactor: parts.reactor, descriptions: stages.describe.latest, inactive: latest?.outcome.inactive ?? []),
            rulesSource: book.source, frame: latest?.end.index ?? 0, fired: !(latest?.end.fires.isEmpty ?? true), fires: stages.fire.count,
            reloads: stages.reload.count, numbers: latest.map { [$0.outcome.numbers, $0.outcome.place] }, gate: stages.gate.shownCounts,
            runT: parts.clock.now() - runStart, lastSnapshot: stages.fire.lastSnapshot, outbound: parts.reactor.outbound,
            paused: book.switches.paused)
    }

    public var stop: StopSignal { parts.stop }
    public var reloads: ReloadRequest { stages.reload.requests }
    public var gateCounts: GateCounts { stages.gate.counts }
}

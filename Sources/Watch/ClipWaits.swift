import Reactions
import Records

/// Posts and commands that wait for their fire's clip (`wait: clip`) hear of it here: each `clip`
/// event goes to the reactor. It holds the reactor weakly: the reactor's reports reach the stream
/// that holds this output, and a strong hold both ways would keep the run, and every output given
/// to it, alive after the run ends.
final class ClipWaits: WatchOutput, @unchecked Sendable {
    let name = "clip waits"
    private weak var reactor: Reactor?

    init(_ reactor: Reactor) { self.reactor = reactor }

    func receive(_ event: WatchEvent) {
        if case .clip(let clip) = event { reactor?.clipped(fire: clip.fire, path: clip.path, problem: clip.error) }
    }
}

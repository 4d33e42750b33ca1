import Reactions
import Records

/// Posts and commands that wait for their fire's clip (`wait: clip`) hear of it here: each `clip`
/// event goes to the reactor.
final class ClipWaits: WatchOutput, @unchecked Sendable {
    let name = "clip waits"
    private let reactor: Reactor

    init(_ reactor: Reactor) { self.reactor = reactor }

    func receive(_ event: WatchEvent) {
        if case .clip(let clip) = event { reactor.clipped(fire: clip.fire, path: clip.path, problem: clip.error) }
    }
}

import LookCore
import Reactions
import Records

/// The reactor as a part of the run: from its start it reports what finishes later (a sound
/// played, a command's exit, a post's answer) into the run's events, and the posts and commands that
/// wait for their fire's clip (`wait: clip`) hear of it here; its stop lets what is under way
/// finish (at most 5 s, then commands and posts are stopped and said so, 1 s more). It holds the
/// run's events weakly: they hold this part, and a strong hold both ways would keep the run alive.
final class ReactorPart: WatchOutput, @unchecked Sendable {
    let name = "reactions"
    let stopLimit = 6.5
    private let reactor: Reactor
    private let clock: any Clock

    init(_ reactor: Reactor, clock: any Clock) { (self.reactor, self.clock) = (reactor, clock) }

    func start(events: any EventSink) throws(OutputFailure) {
        reactor.onReport = { [weak events] report in events?.emit(.report(report)) }
    }

    func receive(_ event: WatchEvent) {
        if case .clip(let clip) = event { reactor.clipped(fire: clip.fire, path: clip.path, problem: clip.error) }
    }

    func stop() { reactor.settle(clock: clock, within: 5) }
}

import LookCore
import Reactions
import Records

/// The reactor as a part of the run: from its start it reports what finishes later (a sound
/// played, a command's exit, a post's answer) into the run's events; its stop lets what is under
/// way finish (at most 5 s, then commands and posts are stopped and said so, 1 s more).
final class ReactorPart: RunPart {
    let name = "reactions"
    let stopLimit = 6.5
    private let reactor: Reactor
    private let clock: any Clock

    init(_ reactor: Reactor, clock: any Clock) { (self.reactor, self.clock) = (reactor, clock) }

    func start(events: any EventSink) throws(OutputFailure) {
        reactor.onReport = { [weak events] report in events?.emit(.report(report)) }
    }

    func stop() { reactor.settle(clock: clock, within: 5) }
}

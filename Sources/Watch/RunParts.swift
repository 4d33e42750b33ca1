import LookCore
import Records

/// A run's parts in one list, written once: the order they start in (and stop in, reversed) and the
/// order each event reaches them are both read from it.
///
/// They start in this order: the recorder first, so that it stops last and every part's last words
/// are in the record; the state keeper; a live source, whose losses are heard before the outputs
/// start; the outputs; the reactor last, so that it stops first and what it reports still reaches
/// every output. Events reach them in the same order, except that a part ahead of the log (the
/// history: a fire the log has, it has) hears each event first, and a live source hears none.
struct RunParts {
    private let recorder: any WatchOutput
    private let keeper: [any WatchOutput]
    private let outputs: [any WatchOutput]
    private let reactor: any WatchOutput

    init(recorder: any WatchOutput, keeper: [any WatchOutput], outputs: [any WatchOutput], reactor: any WatchOutput) {
        (self.recorder, self.keeper, self.outputs, self.reactor) = (recorder, keeper, outputs, reactor)
    }

    /// In the order they start, with the live source, when there is one, in its place.
    func starting(live: [any RunPart]) -> [any RunPart] { [recorder] + keeper + live + outputs + [reactor] }

    /// In the order each event reaches them.
    var hearing: [any WatchOutput] {
        let inOrder = starting(live: []).compactMap { $0 as? any WatchOutput }
        return inOrder.filter { $0 is any AheadOfTheLog } + inOrder.filter { !($0 is any AheadOfTheLog) }
    }
}

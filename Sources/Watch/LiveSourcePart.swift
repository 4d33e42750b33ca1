import Capture
import LookCore
import Records

/// A live source as a part of the run: from its start, its losses and returns go to the journal
/// and, as `live` events, to the records and the outputs (`camera_lost`, `camera_retry`,
/// `camera_found`; `stream_…` for a stream), and a stop ends a wait for it; its stop lets go of the
/// run's events.
final class LiveSourcePart: RunPart {
    let name = "source"
    private let source: any LiveSource
    private let stopping: StopSignal

    init(_ source: any LiveSource, stopping: StopSignal) { (self.source, self.stopping) = (source, stopping) }

    func start(events: any EventSink) throws(OutputFailure) {
        let (name, kind, stopping) = (source.info.name, source.info.kind, stopping)
        source.shouldStop = { stopping.isRequested }
        source.onEvent = { [weak events] event in
            let change: LiveChange.Change
            switch event {
            case .lost(let reason, let retry):
                let sentence = reason.hasSuffix(".") ? reason : reason + "."
                Log.shared.error("\(kind) lost: \(sentence)" + (retry > 0 ? " Trying again in \(JSON.number(retry).text()) s." : ""))
                change = .lost(reason: reason, retry: retry)
            case .stillLost(let attempt, let reason, let retry):
                Log.shared.info("\(kind) still lost (try \(attempt)): \(reason)")
                change = .stillLost(attempt: attempt, reason: reason, retry: retry)
            case .found(let width, let height, let native, let after):
                Log.shared.notice("\(kind) found again: \(name), \(width)×\(height) (\(native)), after \(JSON.number(after, places: 1).text()) s")
                change = .found(width: width, height: height, native: native, after: after)
            }
            events?.emit(.live(LiveChange(kind: kind, device: name, change: change)))
        }
    }

    func stop() { source.onEvent = nil }
}

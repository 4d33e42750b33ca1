import Capture
import LookCore
import Records

/// A live source's losses and returns go to the journal and, as `live` events, to the records and
/// the outputs (`camera_lost`, `camera_retry`, `camera_found`; `stream_…` for a stream); a stop ends
/// a wait for it.
enum LiveSourceEvents {
    static func watch(_ source: any LiveSource, events: any EventSink, stop: StopSignal) {
        let name = source.info.name
        let kind = source.info.kind
        source.shouldStop = { stop.isRequested }
        source.onEvent = { event in
            let change: LiveChange.Change
            switch event {
            case .lost(let reason, let retry):
                let sentence = reason.hasSuffix(".") ? reason : reason + "."
                Log.shared.error("\(kind) lost: \(sentence) Trying again in \(JSON.number(retry).text()) s.")
                change = .lost(reason: reason, retry: retry)
            case .stillLost(let attempt, let reason, let retry):
                Log.shared.info("\(kind) still lost (try \(attempt)): \(reason)")
                change = .stillLost(attempt: attempt, reason: reason, retry: retry)
            case .found(let width, let height, let native, let after):
                Log.shared.notice("\(kind) found again: \(name), \(width)×\(height) (\(native)), after \(JSON.number(after, places: 1).text()) s")
                change = .found(width: width, height: height, native: native, after: after)
            }
            events.emit(.live(LiveChange(kind: kind, device: name, change: change)))
        }
    }
}

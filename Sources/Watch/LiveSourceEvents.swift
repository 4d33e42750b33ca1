import Capture
import Foundation
import LookCore
import Records

extension WatchRun {
    /// A live source's losses and returns go to the log and the event log (`camera_lost`,
    /// `camera_retry`, `camera_found`; `stream_…` for a stream); a stop ends a wait for it.
    static func watchLive(_ source: any LiveSource, events: EventLog, stop: StopSignal, up: @escaping @Sendable (Bool) -> Void = { _ in }) {
        let name = source.info.name
        let kind = source.info.kind
        source.shouldStop = { stop.isRequested }
        source.onEvent = { event in
            switch event {
            case .lost(let reason, let retry):
                up(false)
                Log.shared.error("\(kind) lost: \(reason) Trying again in \(JSON.number(retry).text()) s.")
                events.write("\(kind)_lost", [("device", .string(name)), ("reason", .string(reason)), ("retry_s", .number(retry))])
            case .stillLost(let attempt, let reason, let retry):
                Log.shared.info("\(kind) still lost (try \(attempt)): \(reason)")
                events.write(
                    "\(kind)_retry",
                    [
                        ("device", .string(name)), ("attempt", .int(attempt)), ("reason", .string(reason)),
                        ("retry_s", .number(retry)),
                    ])
            case .found(let width, let height, let native, let after):
                up(true)
                Log.shared.notice("\(kind) found again: \(name), \(width)×\(height) (\(native)), after \(JSON.number(after, places: 1).text()) s")
                events.write(
                    "\(kind)_found",
                    [
                        ("device", .string(name)), ("size", .ints([width, height])), ("native", .string(native)),
                        ("after_s", .number(after)),
                    ])
            }
        }
    }
}

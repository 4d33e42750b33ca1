import Capture
import Foundation
import LookCore
import Records

extension WatchRun {
    /// A camera's losses and returns go to the log and the event log; a stop ends a wait for it.
    static func watchCamera(_ camera: CameraSource, events: EventLog, stop: StopSignal) {
        let device = camera.info.name
        camera.shouldStop = { stop.isRequested }
        camera.onEvent = { event in
            switch event {
            case .lost(let reason, let retry):
                Log.shared.error("camera lost: \(reason) Trying again in \(JSON.number(retry).text()) s.")
                events.write("camera_lost", [("device", .string(device)), ("reason", .string(reason)), ("retry_s", .number(retry))])
            case .stillLost(let attempt, let reason, let retry):
                Log.shared.info("camera still lost (try \(attempt)): \(reason)")
                events.write(
                    "camera_retry",
                    [
                        ("device", .string(device)), ("attempt", .int(attempt)), ("reason", .string(reason)),
                        ("retry_s", .number(retry)),
                    ])
            case .found(let width, let height, let native, let after):
                Log.shared.notice("camera found again: \(device), \(width)×\(height) (\(native)), after \(JSON.number(after, places: 1).text()) s")
                events.write(
                    "camera_found",
                    [
                        ("device", .string(device)), ("size", .ints([width, height])), ("native", .string(native)),
                        ("after_s", .number(after)),
                    ])
            }
        }
    }
}

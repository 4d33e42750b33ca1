import Foundation
import LookCore
import Records

extension WatchConfig {
    /// `--trigger FILE` (its line when it appears) and `--delay S`, both cut short by a stop.
    public func waitToStart(stop: StopSignal, events: any EventSink, clock: any Clock) {
        if let trigger {
            clock.wait(upTo: .infinity, every: 0.02) { FileManager.default.fileExists(atPath: trigger) || stop.isRequested }
            events.emit(.trigger(file: trigger))
        }
        clock.wait(upTo: delay, every: 0.02) { stop.isRequested }
    }
}

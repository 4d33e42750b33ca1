import Foundation
import LookCore
import Records

extension WatchConfig {
    /// The folders a run makes before it watches, each with its name for a message (the event log's
    /// folder is made as the record folder is, when it is missing).
    public var recordFolders: [(String?, String)] {
        [
            (recordDir, "record folder"), (framesDir, "frames folder"), (effectsDir, "effects folder"), (snapshotsDir, "snapshots folder"),
            (RunLeftovers.missingFolder(of: eventLogPath), "event log's folder"),
        ]
    }

    /// `--trigger FILE` (its line when it appears) and `--delay S`, both cut short by a stop.
    public func waitToStart(stop: StopSignal, events: any EventSink, clock: any Clock) {
        if let trigger {
            clock.wait(upTo: .infinity, every: 0.02) { FileManager.default.fileExists(atPath: trigger) || stop.isRequested }
            events.emit(.trigger(file: trigger))
        }
        clock.wait(upTo: delay, every: 0.02) { stop.isRequested }
    }
}

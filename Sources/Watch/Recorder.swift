import Foundation
import LookCore
import Records

/// The one place a watch's outcomes become records: each frame's `watch` line when its answer is
/// read, each fire's line as it fires and its `hold` line when its hold ends, and the run record's
/// entry once the frame is complete (nothing is edited after it is written).
final class Recorder {
    let events: EventLog
    let record: RunRecord

    init(events: EventLog, record: RunRecord) {
        self.events = events
        self.record = record
    }

    /// The frame's answer is read: its line, and how long the line took to write.
    func answered(_ frame: inout FrameOutcome) {
        let started = Date()
        events.write("watch", frame.eventFields)
        frame.recordWrite = Date().timeIntervalSince(started)
    }

    func fired(_ fire: FireOutcome) {
        events.write("fire", fire.eventFields)
    }

    func held(_ fire: FireOutcome) {
        if let fields = fire.holdEventFields { events.write("hold", fields) }
    }

    /// A frame whose model call failed.
    func failed(_ failure: FrameFailure) {
        events.write("frame_failed", failure.eventFields)
        record.add(failure)
    }

    /// The frame with its fires and holds: its run-record entry.
    func finished(_ frame: FrameOutcome) {
        record.add(frame)
    }
}

import Foundation
import LookCore

/// The one place a watch's events become records: each event's line in the event log, and the run
/// record's entries (a frame once it is complete with its fires and holds, a failed frame, a later
/// report, a reload). Nothing is edited after it is written.
public final class EventRecorder: WatchOutput, @unchecked Sendable {
    public let name = "records"
    public let events: EventLog
    /// The run record, set once the source is known (its window depends on the source).
    public var record: RunRecord?
    private let clock: any Clock
    /// How long the latest `watch` line took to write (the frame's `record_ms`).
    private var lastWrite: Double?

    public init(events: EventLog, record: RunRecord? = nil, clock: any Clock) {
        self.events = events
        self.record = record
        self.clock = clock
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .answered:
            let started = clock.now()
            write(event)
            lastWrite = clock.now() - started
        case .frame(var frame, _, _):
            frame.recordWrite = lastWrite
            record?.add(frame)
        case .frameFailed(let failure, _):
            write(event)
            record?.add(failure)
        case .report(let report):
            write(event)
            record?.add(report)
        case .clip(let clip):
            write(event)
            record?.add(clip)
        case .rules(let change):
            write(event)
            if change.action == .reloaded { record?.reloaded(change.rules, why: change.why ?? "") }
        default:
            write(event)
        }
    }

    private func write(_ event: WatchEvent) {
        if let line = event.line { events.write(line.event, line.fields) }
    }
}

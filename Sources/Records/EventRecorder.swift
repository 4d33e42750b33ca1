import Foundation
import LookCore
import Platform

/// The one place a watch's events become records: each event's line in the event log, and the run
/// record's entries (a frame once it is complete with its fires and holds, a failed frame, a later
/// report, a reload). Nothing is edited after it is written. As a part of the run it stops after
/// every part that reports into it (it starts first): its stop writes the `stop` line, the run
/// record and the `done` line.
public final class EventRecorder: WatchOutput, @unchecked Sendable {
    public let name = "records"
    public let events: EventLog
    /// The run record, set once the source is known (its window depends on the source), and the
    /// path claimed for it.
    public var record: RunRecord?
    public var recordPath: String?
    private let clock: any Clock
    /// The latest `watch` line's frame and the seconds the line took to write (its `record_ms`),
    /// kept until the frame's end comes.
    private var answered: (frame: FrameOutcome, written: Double)?
    /// The stream its stop's lines go into, from its start until its stop.
    private var sink: (any EventSink)?
    /// When the watch began (its first frame's wait), and why and when it stopped, as the events said.
    private var watching: Double?
    private var stopping: (reason: String, at: Double, snapshot: WatchSnapshot)?
    /// What its stop wrote: the run record's path, or why it could not be written.
    public private(set) var written: Result<String, SafeFile.Failure>?

    public init(events: EventLog, record: RunRecord? = nil, clock: any Clock) {
        self.events = events
        self.record = record
        self.clock = clock
    }

    public func start(events: any EventSink) throws(OutputFailure) {
        sink = events
        watching = clock.now()
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .answered(let frame):
            let started = clock.now()
            write(event)
            answered = (frame, clock.now() - started)
        case .frame(let end, _, _):
            guard let answered, answered.frame.index == end.index else { return }
            record?.add(answered.frame, end: end, written: answered.written)
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
            if change.action == .reloaded { record?.reloaded(change.rules, why: change.why ?? "", at: clock.date()) }
        case .watching:
            watching = clock.now()
            write(event)
        case .stopping(let reason, let snapshot):
            stopping = (reason, clock.now(), snapshot)
            write(event)
        default:
            write(event)
        }
    }

    /// The `stop` line, the run record (its seconds from the watch's start to its stop), and the
    /// `done` line with where the record went; an `error` line when it could not be written.
    public func stop() {
        guard let sink, let record, let recordPath else { return }
        self.sink = nil // the stream holds this output: let go of it, so the run can go
        let reason = stopping?.reason ?? "error"
        // Lines a full disk lost are counted where they can still be read: the stop line and the record.
        record.logLinesLost = events.lostLines
        sink.emit(.stop(reason: reason, frames: record.frameCount, lostLines: record.logLinesLost))
        let seconds = (stopping?.at ?? clock.now()) - (watching ?? clock.now())
        do throws(SafeFile.Failure) {
            let path = try record.write(to: recordPath, stopReason: reason, seconds: seconds)
            written = .success(path)
            let snapshot = stopping?.snapshot ?? WatchSnapshot(rows: [], rulesSource: "")
            sink.emit(.done(frames: record.frameCount, fires: record.fireCount, record: path, snapshot))
        } catch {
            written = .failure(error)
            sink.emit(.failed(stage: "record", message: "The run record \(error.description)."))
        }
    }

    private func write(_ event: WatchEvent) {
        if let line = event.line { events.write(line.event, line.fields) }
    }
}

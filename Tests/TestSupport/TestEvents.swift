import Foundation
import LookCore
import Records

/// The outputs of a loop under test, as one sink: the recorder (an event log at `log`, or none, and
/// the run record), then a list of every event in order; `onFrame` sees each complete frame.
public final class TestEvents: EventSink, WatchOutput, @unchecked Sendable {
    public let name = "test"
    public let recorder: EventRecorder
    private let lock = NSLock()
    private var events: [WatchEvent] = []
    /// Each complete frame, on the loop's thread (a test stops the loop after one, say).
    public var onFrame: ((SeenFrame) -> Void)?
    private var joiner = FrameJoiner()

    public init(log: String? = nil, record: RunRecord, clock: any Clock = MonotonicClock()) throws {
        recorder = EventRecorder(events: try EventLog(path: log, clock: clock), record: record, clock: clock)
    }

    public var record: RunRecord { recorder.record! }
    /// Every event so far.
    public var all: [WatchEvent] { lock.withLock { events } }

    public func emit(_ event: WatchEvent) {
        recorder.receive(event)
        receive(event)
    }

    public func receive(_ event: WatchEvent) {
        lock.withLock { events.append(event) }
        if let frame = lock.withLock({ joiner.seen(event) }) { onFrame?(frame) }
    }
}

import Foundation
import LookCore

/// A source that did not open at the start, waited for as one that went away during a run is: the
/// run starts, `…_lost` (`camera_lost`, `stream_lost`, `video_lost`) says why, and when it opens its
/// frames flow, `…_found` first. Two ways to get here:
/// - its first try failed (`failed:`): tries follow with the lost camera's backoff (0.5 s doubling
///   to 10 s). The service waits so for a camera or a stream (an unplugged camera is no reason to
///   stop); a terminal run still refuses a device that is not there (a typo is likelier there);
/// - its open did not end within its limit (`pending:`, `SourceOpener.Options.openSeconds`: a FIFO
///   with no writer, a stalled mount, a device that never answers): that open goes on, and if it
///   fails, tries follow as above.
/// Every try runs on a thread of its own (`PendingOpen`), so a stop is never held up by one.
///
/// Until the source opens, its size is not known: `info` gives the size lookd asks a camera for
/// (its long side `expectedSide`, 16:9), for the records and the token budget's check.
public final class AwaitedSource: LiveSource, @unchecked Sendable {
    /// How it came to be waited for.
    enum Start {
        case failed(String)
        case pending(PendingOpen, limit: Double)
    }

    public let info: SourceInfo
    private let open: @Sendable () throws(CaptureError) -> any FrameSource
    private var start: Start?
    private let clock: any Clock
    private let lock = NSLock()
    private var opened: (any FrameSource)?
    private var handlers: (onEvent: (@Sendable (SourceEvent) -> Void)?, shouldStop: (@Sendable () -> Bool)?) = (nil, nil)

    public var onEvent: (@Sendable (SourceEvent) -> Void)? {
        get { lock.withLock { handlers.onEvent } }
        set {
            lock.withLock { handlers.onEvent = newValue }
            if let live = current as? any LiveSource { live.onEvent = newValue }
        }
    }
    public var shouldStop: (@Sendable () -> Bool)? {
        get { lock.withLock { handlers.shouldStop } }
        set {
            lock.withLock { handlers.shouldStop = newValue }
            if let live = current as? any LiveSource { live.shouldStop = newValue }
        }
    }

    private var current: (any FrameSource)? { lock.withLock { opened } }

    /// `failure`: why the first try failed; `open` is tried again until it works or a stop.
    public convenience init(
        kind: String, name: String, failure: String, expectedSide: Int = 448, clock: any Clock,
        open: @escaping @Sendable () throws(CaptureError) -> any FrameSource
    ) {
        self.init(kind: kind, name: name, start: .failed(failure), expectedSide: expectedSide, clock: clock, open: open)
    }

    /// `start`: the first try's failure, or the open still under way; `open` is a later try.
    init(
        kind: String, name: String, start: Start, expectedSide: Int, clock: any Clock,
        open: @escaping @Sendable () throws(CaptureError) -> any FrameSource
    ) {
        info = SourceInfo(kind: kind, name: name, width: expectedSide, height: expectedSide * 9 / 16, pace: "live")
        (self.start, self.clock, self.open) = (start, clock, open)
    }

    deinit { if case .pending(let pending, _)? = start { pending.abandon() } }

    /// The source's next frame, once it has opened; nil when a stop came first.
    public func next() throws(CaptureError) -> Frame? {
        if let source = current { return try source.next() }
        let (onEvent, shouldStop) = lock.withLock { handlers }
        let stopped = { shouldStop?() ?? false }
        let lostAt = clock.now()
        var made: (any FrameSource)?
        var failure: String?
        switch start {
        case .failed(let reason)?:
            onEvent?(.lost(reason: reason, retry: CameraFormat.backoff(try: 1)))
        case .pending(let pending, let limit)?:
            let reason =
                "\(info.name) did not open within \(Quantity.number(limit)) s (a pipe with no writer, a stalled mount or a device "
                + "that does not answer?); lookd waits for it"
            onEvent?(.lost(reason: reason, retry: 0))
            switch pending.wait(upTo: nil, clock: clock, stopped: stopped) {
            case .success(let source)?:
                made = source
                onEvent?(.found(width: source.info.width, height: source.info.height, native: "opened", after: clock.now() - lostAt))
            case .failure(let error)?: failure = error.description
            case nil: return nil // a stop came first
            }
        case nil:
            break
        }
        start = nil
        if let failure { onEvent?(.stillLost(attempt: 1, reason: failure, retry: CameraFormat.backoff(try: 2))) }
        if made == nil {
            made = LiveReopening(isStopped: stopped, onEvent: onEvent, clock: clock).run { [open, clock] in
                switch PendingOpen(open).wait(upTo: nil, clock: clock, stopped: stopped) {
                case .success(let source)?: return .success((source, source.info.width, source.info.height, "opened"))
                case .failure(let error)?: return .failure(LiveReopening.Failure(reason: error.description))
                case nil: return .failure(LiveReopening.Failure(reason: "stopped"))
                }
            }
        }
        guard let made else { return nil }
        if let live = made as? any LiveSource {
            live.onEvent = onEvent
            live.shouldStop = shouldStop
        }
        lock.withLock { opened = made }
        return try made.next()
    }

    public func pause() { current?.pause() }
    public func resume() { current?.resume() }
    public var position: Double? { current?.position }
    public func original() -> RGBImage? { current?.original() }
}

import Foundation
import LookCore

/// A camera or stream that could not be opened at the start, waited for as one that went away
/// during a run is: the run starts, `camera_lost` (or `stream_lost`) says why, tries follow with the
/// same backoff (0.5 s doubling to 10 s), and when it opens its frames flow, `camera_found` first.
/// The service waits so (an unplugged camera is no reason to stop); a terminal run still refuses a
/// device that is not there (a typo is likelier there).
///
/// Until the source opens, its size is not known: `info` gives the size lookd asks a camera for
/// (its long side `expectedSide`, 16:9), for the records and the token budget's check.
public final class AwaitedSource: LiveSource, @unchecked Sendable {
    public let info: SourceInfo
    private let open: () throws(CaptureError) -> any FrameSource
    private let firstFailure: String
    private let clock: any Clock
    private let lock = NSLock()
    private var opened: (any FrameSource)?
    private var handlers: (onEvent: (@Sendable (SourceEvent) -> Void)?, shouldStop: (@Sendable () -> Bool)?) = (nil, nil)

    public var onEvent: (@Sendable (SourceEvent) -> Void)? {
        get { lock.withLock { handlers.onEvent } }
        set {
            lock.withLock { handlers.onEvent = newValue }
            if var live = current as? any LiveSource { live.onEvent = newValue }
        }
    }
    public var shouldStop: (@Sendable () -> Bool)? {
        get { lock.withLock { handlers.shouldStop } }
        set {
            lock.withLock { handlers.shouldStop = newValue }
            if var live = current as? any LiveSource { live.shouldStop = newValue }
        }
    }

    private var current: (any FrameSource)? { lock.withLock { opened } }

    /// `failure`: why the first try failed; `open` is tried again until it works or a stop.
    public init(
        kind: String, name: String, failure: String, expectedSide: Int = 448, clock: any Clock,
        open: @escaping () throws(CaptureError) -> any FrameSource
    ) {
        info = SourceInfo(kind: kind, name: name, width: expectedSide, height: expectedSide * 9 / 16, pace: "live")
        firstFailure = failure
        self.clock = clock
        self.open = open
    }

    /// The source's next frame, once it has opened; nil when a stop came first.
    public func next() throws(CaptureError) -> Frame? {
        if let source = current { return try source.next() }
        let (onEvent, shouldStop) = lock.withLock { handlers }
        onEvent?(.lost(reason: firstFailure, retry: CameraFormat.backoff(try: 1)))
        let reopening = LiveReopening(isStopped: { shouldStop?() ?? false }, onEvent: onEvent, clock: clock)
        let made: (any FrameSource)? = reopening.run {
            [open] () -> Result<(any FrameSource, width: Int, height: Int, native: String), LiveReopening.Failure> in
            do throws(CaptureError) {
                let source = try open()
                return .success((source, source.info.width, source.info.height, "opened"))
            } catch {
                return .failure(LiveReopening.Failure(reason: error.description))
            }
        }
        guard let made else { return nil }
        if var live = made as? any LiveSource {
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

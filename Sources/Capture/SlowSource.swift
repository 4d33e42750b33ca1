import Foundation
import LookCore

/// A source whose open did not finish within its limit (`SourceOpener.Options.openSeconds`): the
/// run goes on as for a lost camera, `…_lost` names it and why, the open goes on meanwhile, and its
/// frames flow once it opens (`…_found` first). An open that fails is tried again with the lost
/// camera's backoff, each try on a thread of its own so that a stop is never held up.
final class SlowSource: LiveSource, @unchecked Sendable {
    let info: SourceInfo
    private let reason: String
    private let clock: any Clock
    private let reopen: @Sendable () throws(CaptureError) -> any FrameSource
    private let lock = NSLock()
    private var pending: PendingOpen?
    private var opened: (any FrameSource)?
    private var handlers: (onEvent: (@Sendable (SourceEvent) -> Void)?, shouldStop: (@Sendable () -> Bool)?) = (nil, nil)

    var onEvent: (@Sendable (SourceEvent) -> Void)? {
        get { lock.withLock { handlers.onEvent } }
        set {
            lock.withLock { handlers.onEvent = newValue }
            if let live = current as? any LiveSource { live.onEvent = newValue }
        }
    }
    var shouldStop: (@Sendable () -> Bool)? {
        get { lock.withLock { handlers.shouldStop } }
        set {
            lock.withLock { handlers.shouldStop = newValue }
            if let live = current as? any LiveSource { live.shouldStop = newValue }
        }
    }

    private var current: (any FrameSource)? { lock.withLock { opened } }

    /// `pending`: the open under way; `reopen`: a try after it failed.
    init(
        info: SourceInfo, pending: PendingOpen, limit: Double, clock: any Clock,
        reopen: @escaping @Sendable () throws(CaptureError) -> any FrameSource
    ) {
        self.info = info
        reason =
            "\(info.name) did not open within \(Quantity.number(limit)) s (a pipe with no writer, a stalled mount or a device "
            + "that does not answer?); lookd waits for it"
        (self.pending, self.clock, self.reopen) = (pending, clock, reopen)
    }

    deinit { pending?.abandon() }

    func next() throws(CaptureError) -> Frame? {
        if let source = current { return try source.next() }
        let (onEvent, shouldStop) = lock.withLock { handlers }
        let stopped = { shouldStop?() ?? false }
        let lostAt = clock.now()
        onEvent?(.lost(reason: reason, retry: 0))
        var made: (any FrameSource)?
        switch pending?.wait(upTo: nil, clock: clock, stopped: stopped) {
        case .success(let source)?:
            made = source
            onEvent?(.found(width: source.info.width, height: source.info.height, native: "opened", after: clock.now() - lostAt))
        case .failure(let error)?:
            onEvent?(.stillLost(attempt: 1, reason: error.description, retry: CameraFormat.backoff(try: 2)))
            made = LiveReopening(isStopped: stopped, onEvent: onEvent, clock: clock).run { [reopen, clock] in
                switch PendingOpen(reopen).wait(upTo: nil, clock: clock, stopped: stopped) {
                case .success(let source)?: return .success((source, source.info.width, source.info.height, "opened"))
                case .failure(let error)?: return .failure(LiveReopening.Failure(reason: error.description))
                case nil: return .failure(LiveReopening.Failure(reason: "stopped"))
                }
            }
        case nil:
            return nil // a stop came first
        }
        pending = nil
        guard let made else { return nil }
        if let live = made as? any LiveSource {
            live.onEvent = onEvent
            live.shouldStop = shouldStop
        }
        lock.withLock { opened = made }
        return try made.next()
    }

    func pause() { current?.pause() }
    func resume() { current?.resume() }
    var position: Double? { current?.position }
    func original() -> RGBImage? { current?.original() }
}

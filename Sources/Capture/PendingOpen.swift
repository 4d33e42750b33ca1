import Foundation
import LookCore

/// An open that may block for ever (a FIFO with no writer, a file on a stalled mount, a device that
/// never answers), run on a thread of its own so that whoever waits for it can stop waiting: the
/// house goes on, and a stop is never held up by it. What it opens after nobody wants it any more is
/// let go (its deinit closes it).
final class PendingOpen: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<any FrameSource, CaptureError>?
    private var abandoned = false

    init(_ open: @escaping @Sendable () throws(CaptureError) -> any FrameSource) {
        let thread = Thread { [self] in
            let opened = Result { () throws(CaptureError) in try open() }
            condition.withLock {
                if !abandoned { result = opened }
                condition.broadcast()
            }
        }
        thread.name = "lookd open"
        thread.start()
    }

    /// Waits until the open is done, `seconds` pass on `clock` (nil: no bound), or `stopped` says
    /// so; nil when it is still under way.
    func wait(upTo seconds: Double?, clock: any Clock, stopped: () -> Bool = { false }) -> Result<any FrameSource, CaptureError>? {
        let until = seconds.map { clock.now() + $0 }
        return condition.withLock {
            while result == nil, !stopped(), until.map({ clock.now() < $0 }) ?? true { condition.wait(slice: 0.05) }
            return result
        }
    }

    /// Nobody waits for it any more: what it opens later is closed at once.
    func abandon() { condition.withLock { abandoned = true } }
}

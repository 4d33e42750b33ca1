import Foundation

/// Why and whether a run should stop, set from a signal handler, a timer or the loop itself.
/// The first request stops the run after the frame being answered; a second interrupt also cancels
/// that frame's answer.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var why: String?
    private var deadline: (clock: any Clock, at: Double)?
    public let cancellation = Cancellation()

    public init() {}

    /// Why the run should stop: asked for, or its deadline passed (which asks, once).
    public var reason: String? {
        let (asked, due) = lock.withLock { (why, deadline) }
        if asked == nil, let due, due.clock.now() >= due.at { request("seconds") }
        return lock.withLock { why }
    }
    public var isRequested: Bool { reason != nil }

    /// Asks the run to stop; returns false when it was asked already.
    @discardableResult
    public func request(_ reason: String) -> Bool {
        let first = lock.withLock { () -> Bool in
            guard why == nil else { return false }
            why = reason
            return true
        }
        if first { cancellation.windDown() }
        return first
    }

    /// `--seconds`: the run stops `seconds` from now on `clock` (checked wherever a stop is, so a
    /// wait for a lost camera ends too), as a stop requested with the reason `seconds`.
    public func expire(after seconds: Double, on clock: any Clock) {
        lock.withLock { deadline = (clock, clock.now() + seconds) }
    }

    /// A signal: the first stops after this frame, the next cancels its answer too.
    public func interrupt(_ name: String) {
        if !request(name) { cancellation.cancel() }
    }
}

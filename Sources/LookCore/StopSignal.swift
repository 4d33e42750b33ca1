import Foundation

/// Why and whether a run should stop, set from a signal handler, a timer or the loop itself.
/// The first request stops the run after the frame being answered; a second interrupt also cancels
/// that frame's answer.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var why: String?
    private var deadline: (clock: any Clock, at: Double)?
    public let cancellation: Cancellation

    /// `clock`: the one a stop's grace and holds are read on.
    public init(clock: any Clock) { cancellation = Cancellation(clock: clock) }

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

    /// Waits `seconds` on `clock` for a hold: a stop that comes meanwhile lets it play on for at most
    /// `grace` seconds more (a hold plays out, as the service promises, but never holds the stop
    /// long); one already asked for cuts it at once (a hold queued behind the stop). Whether the stop
    /// cut it short.
    public func hold(_ seconds: Double, on clock: any Clock, grace: Double = 3) -> Bool {
        let end = clock.now() + seconds
        var cutAt: Double? = isRequested ? clock.now() : nil
        while clock.now() < min(end, cutAt ?? end) {
            clock.sleep(min(0.1, min(end, cutAt ?? end) - clock.now()))
            if cutAt == nil, isRequested { cutAt = clock.now() + grace }
        }
        return cutAt.map { $0 < end } ?? false
    }

    /// A signal: the first stops after this frame, the next cancels its answer too.
    public func interrupt(_ name: String) {
        if !request(name) { cancellation.cancel() }
    }
}

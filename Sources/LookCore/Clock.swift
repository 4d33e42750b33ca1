import Dispatch
import Foundation

/// Where time comes from, so that logic that depends on it is tested with a clock the test moves.
/// The composition root makes one (`MonotonicClock`) and hands it down; nothing below it reads the
/// system's time itself (ArchitectureTests holds this).
public protocol Clock: Sendable {
    /// Seconds on a monotonic scale (only differences mean anything).
    func now() -> Double
    /// Waits `seconds` on this clock (a hold; a test's clock just moves on).
    func sleep(_ seconds: Double)
    /// The date and time of day, which calendar rules' schedules and fire times are read on.
    func date() -> Date
    /// Runs `work` once, on another thread, when `seconds` have passed on this clock (a countdown's
    /// end, a bound on a wait, a retry).
    func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void)
}

/// The system's monotonic clock.
public struct MonotonicClock: Clock {
    public init() {}
    public func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    public func sleep(_ seconds: Double) {
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
    }
    public func date() -> Date { Date() }
    public func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, seconds), execute: work)
    }
}

extension Clock {
    /// Waits until `done` holds or `seconds` pass on this clock, looking every `slice` seconds (so a
    /// stop or a change is noticed within a slice).
    public func wait(upTo seconds: Double, every slice: Double, until done: () -> Bool) {
        let until = now() + seconds
        while !done() && now() < until { sleep(min(slice, until - now())) }
    }
}

extension NSCondition {
    /// Waits for a signal for at most `seconds` (the lock held); false when none came. A condition
    /// wakes on the system's clock, so this is only a slice a thread looks up from its work in,
    /// never how long something lasts: that is read on the injected `Clock`.
    @discardableResult
    public func wait(slice seconds: Double) -> Bool { wait(until: Date(timeIntervalSinceNow: seconds)) }
}

import Foundation
import LookCore

/// A clock the test moves by hand. Its date moves with it, from a fixed day (1 December 2026,
/// 12:00 UTC), unless the test sets the date itself.
///
/// A sleep moves it at once; with a `pace`, a sleep also takes that share of its seconds of real
/// time (0.01: a second of the clock in 10 ms), for the tests whose threads meet a thread that
/// waits on real time (the house's keeper).
public final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var t: Double
    private var wall: Date?
    private let start: Double
    private let pace: Double
    private var alarms: [(due: Double, work: @Sendable () -> Void)] = []

    public init(_ start: Double = 1000, pace: Double = 0) {
        t = start
        self.start = start
        self.pace = pace
    }

    public func now() -> Double { lock.withLock { t } }
    public func sleep(_ seconds: Double) {
        if pace > 0, seconds > 0 { usleep(UInt32(min(seconds * pace, 1) * 1e6)) }
        advance(max(0, seconds))
    }
    public func advance(_ seconds: Double) { moved { t += seconds } }
    public func set(_ value: Double) { moved { t = value } }
    /// Runs `work` when the test has moved the clock `seconds` on (on the thread that moves it).
    public func after(_ seconds: Double, _ work: @escaping @Sendable () -> Void) {
        lock.withLock { alarms.append((t + max(0, seconds), work)) }
    }

    private func moved(_ change: () -> Void) {
        let due = lock.withLock { () -> [@Sendable () -> Void] in
            change()
            let due = alarms.filter { $0.due <= t }
            alarms.removeAll { $0.due <= t }
            return due.sorted { $0.due < $1.due }.map(\.work)
        }
        for work in due { work() }
    }
    public func date() -> Date { lock.withLock { wall ?? Date(timeIntervalSince1970: 1_796_126_400 + t - start) } }
    /// Sets the date the clock gives from now on (its seconds go on as they were).
    public func setDate(_ date: Date) { lock.withLock { wall = date } }
}

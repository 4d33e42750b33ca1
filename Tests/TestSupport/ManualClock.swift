import Foundation
import LookCore

/// A clock the test moves by hand. Its date moves with it, from a fixed day (1 December 2026,
/// 12:00 UTC), unless the test sets the date itself.
public final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var t: Double
    private var wall: Date?
    private let start: Double

    public init(_ start: Double = 1000) {
        t = start
        self.start = start
    }

    public func now() -> Double { lock.withLock { t } }
    public func sleep(_ seconds: Double) { advance(max(0, seconds)) }
    public func advance(_ seconds: Double) { lock.withLock { t += seconds } }
    public func set(_ value: Double) { lock.withLock { t = value } }
    public func date() -> Date { lock.withLock { wall ?? Date(timeIntervalSince1970: 1_796_126_400 + t - start) } }
    /// Sets the date the clock gives from now on (its seconds go on as they were).
    public func setDate(_ date: Date) { lock.withLock { wall = date } }
}

import Foundation
import LookCore

/// A clock the test moves by hand.
public final class ManualClock: Clock, @unchecked Sendable {
    private let lock = NSLock()
    private var t: Double

    public init(_ start: Double = 1000) { t = start }

    public func now() -> Double { lock.withLock { t } }
    public func sleep(_ seconds: Double) { advance(max(0, seconds)) }
    public func advance(_ seconds: Double) { lock.withLock { t += seconds } }
    public func set(_ value: Double) { lock.withLock { t = value } }
}

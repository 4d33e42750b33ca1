import Foundation
import LookCore
import ReactionDomain

/// One countdown per rule. A rule that fires again while its timer runs restarts it.
public final class Timers: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [String: (end: Double, minutes: Double, id: UUID)] = [:]
    private let clock: any Clock
    /// Called when a countdown reaches its end (on the thread the clock's alarm runs on).
    var onEnd: (@Sendable (_ condition: String, _ minutes: Double) -> Void)?

    /// Countdowns run on `clock`: a test's clock ends them when it is moved past their end.
    public init(clock: any Clock) { self.clock = clock }

    /// Starts (or restarts) the countdown of `condition`; returns true when it was running.
    @discardableResult
    public func start(_ condition: String, minutes: Double) -> Bool {
        let id = UUID()
        let seconds = minutes * 60
        let restarted = lock.withLock { () -> Bool in
            let old = running[condition] != nil
            running[condition] = (clock.now() + seconds, minutes, id)
            return old
        }
        // A restarted or dropped countdown's alarm finds another id (or none) and does nothing.
        clock.after(seconds) { [weak self] in
            guard let self else { return }
            let ended = self.lock.withLock { () -> Bool in
                guard self.running[condition]?.id == id else { return false }
                self.running[condition] = nil
                return true
            }
            if ended { self.onEnd?(condition, minutes) }
        }
        return restarted
    }

    /// Stops the countdowns of conditions not in `conditions` (rules a reload dropped).
    public func keep(only conditions: Set<String>) {
        lock.withLock { running = running.filter { conditions.contains($0.key) } }
    }

    /// Seconds left on `condition`'s countdown, nil when none runs.
    public func remaining(_ condition: String) -> Double? {
        let now = clock.now()
        return lock.withLock { running[condition].map { max(0, $0.end - now) } }
    }

    /// `4:00`, `0:59`: minutes and seconds left.
    public static func clock(_ seconds: Double) -> String { TimerReaction.clock(seconds) }
}

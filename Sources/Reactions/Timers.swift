import Dispatch
import Foundation
import LookCore

/// One countdown per rule. A rule that fires again while its timer runs restarts it.
public final class Timers: @unchecked Sendable {
    private let lock = NSLock()
    private var running: [String: (end: Date, minutes: Double, timer: DispatchSourceTimer, id: UUID)] = [:]
    private let queue = DispatchQueue(label: "lookd timers")
    /// Called when a countdown reaches its end (on the timers' queue).
    var onEnd: (@Sendable (_ condition: String, _ minutes: Double) -> Void)?

    public init() {}

    /// Starts (or restarts) the countdown of `condition`; returns true when it was running.
    @discardableResult
    public func start(_ condition: String, minutes: Double) -> Bool {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let id = UUID()
        let seconds = minutes * 60
        timer.schedule(deadline: .now() + seconds)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            let ended = self.lock.withLock { () -> Bool in
                guard self.running[condition]?.id == id else { return false }
                self.running[condition] = nil
                return true
            }
            if ended { self.onEnd?(condition, minutes) }
        }
        let previous = lock.withLock { () -> DispatchSourceTimer? in
            let old = running[condition]?.timer
            running[condition] = (Date().addingTimeInterval(seconds), minutes, timer, id)
            return old
        }
        previous?.cancel()
        timer.resume()
        return previous != nil
    }

    /// Stops the countdowns of conditions not in `conditions` (rules a reload dropped).
    public func keep(only conditions: Set<String>) {
        let dropped = lock.withLock { () -> [DispatchSourceTimer] in
            let gone = running.filter { !conditions.contains($0.key) }
            for key in gone.keys { running[key] = nil }
            return gone.values.map(\.timer)
        }
        for timer in dropped { timer.cancel() }
    }

    /// Seconds left on `condition`'s countdown, nil when none runs.
    public func remaining(_ condition: String) -> Double? {
        lock.withLock { running[condition].map { max(0, $0.end.timeIntervalSinceNow) } }
    }

    /// `4:00`, `0:59`: minutes and seconds left.
    public static func clock(_ seconds: Double) -> String { TimerReaction.clock(seconds) }
}

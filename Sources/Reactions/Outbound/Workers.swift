import Foundation

/// A bounded pool for outward work (commands, posts): at most `limit` jobs run at once, each on a
/// thread of its own; up to `waiting` more wait in order; past that a job is dropped and counted.
/// A fire never waits for it. A job that is dropped, when it comes or at a stop, is told why, so
/// every job ends with one word of its own.
final class Workers: @unchecked Sendable {
    let limit: Int
    let waiting: Int
    private let name: String
    private let lock = NSLock()
    private var running = 0
    private var queue: [(job: @Sendable () -> Void, dropped: @Sendable (String) -> Void)] = []
    private(set) var dropped = 0

    init(name: String, limit: Int, waiting: Int) {
        self.name = name
        self.limit = max(1, limit)
        self.waiting = max(0, waiting)
    }

    /// Starts `job` now, or queues it; false (counted, and `dropped` told why) when the queue is full.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void, dropped: @escaping @Sendable (String) -> Void = { _ in }) -> Bool {
        let start = lock.withLock { () -> (Bool, Int)? in
            if running < limit {
                running += 1
                return (true, 0)
            }
            guard queue.count < waiting else {
                self.dropped += 1
                return (false, self.dropped)
            }
            queue.append((job, dropped))
            return nil
        }
        guard let (now, count) = start else { return true }
        if now {
            launch(job)
            return true
        }
        dropped("dropped: \(limit) running and \(waiting) waiting (\(count) dropped in this run)")
        return false
    }

    /// Drops every job still waiting (a stop): each is counted, told so, and never starts.
    func cancelWaiting() {
        let cancelled = lock.withLock {
            defer { queue.removeAll() }
            dropped += queue.count
            return queue.map(\.dropped)
        }
        for told in cancelled { told("dropped: lookd stopped before it could start") }
    }

    /// Whether any job runs or waits now.
    var busy: Bool { lock.withLock { running + queue.count > 0 } }

    private func launch(_ job: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            var next: (@Sendable () -> Void)? = job
            while let work = next {
                work()
                next = lock.withLock {
                    if queue.isEmpty {
                        running -= 1
                        return nil
                    }
                    return queue.removeFirst().job
                }
            }
        }
        thread.name = name
        thread.stackSize = 512 * 1024
        thread.start()
    }
}

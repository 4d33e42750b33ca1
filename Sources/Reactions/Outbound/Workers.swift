import Foundation

/// A bounded pool for outward work (commands, posts): at most `limit` jobs run at once, each on a
/// thread of its own; up to `waiting` more wait in order; past that a job is dropped and counted.
/// A fire never waits for it.
final class Workers: @unchecked Sendable {
    let limit: Int
    let waiting: Int
    private let name: String
    private let lock = NSLock()
    private var running = 0
    private var queue: [@Sendable () -> Void] = []
    private(set) var dropped = 0

    init(name: String, limit: Int, waiting: Int) {
        self.name = name
        self.limit = max(1, limit)
        self.waiting = max(0, waiting)
    }

    /// Starts `job` now, or queues it; false (and counted) when the queue is full.
    @discardableResult
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let start = lock.withLock { () -> Bool? in
            if running < limit {
                running += 1
                return true
            }
            guard queue.count < waiting else {
                dropped += 1
                return nil
            }
            queue.append(job)
            return false
        }
        guard let start else { return false }
        if start { launch(job) }
        return true
    }

    /// Drops every job still waiting (a stop): they are counted as dropped and never start.
    func cancelWaiting() {
        lock.withLock {
            dropped += queue.count
            queue.removeAll()
        }
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
                    return queue.removeFirst()
                }
            }
        }
        thread.name = name
        thread.stackSize = 512 * 1024
        thread.start()
    }
}

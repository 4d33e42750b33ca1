import Foundation

/// The event streams a server holds open at once, counted for the whole server: the pages of a
/// house's cameras draw on one count, so streams opened on several cameras' pages never take every
/// connection the server has (16 streams, a tab each, leave its 64 connections room for the rest).
final class StreamSlots: @unchecked Sendable {
    let limit: Int
    private let lock = NSLock()
    private var open = 0

    init(limit: Int = 16) { self.limit = limit }

    /// Takes a slot; false when every slot is taken.
    func take() -> Bool {
        lock.withLock {
            guard open < limit else { return false }
            open += 1
            return true
        }
    }

    /// Gives a slot back.
    func give() { lock.withLock { open = max(0, open - 1) } }
}

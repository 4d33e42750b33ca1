import Foundation

/// What was said lately, so that several cameras meeting the same thing at once (a rules file with
/// a problem, reloaded by each) say it once: `first` is true for a text not said in the last
/// `within` seconds. Times are the caller's clock's.
public final class RecentlySaid: @unchecked Sendable {
    private let lock = NSLock()
    private var said: [String: Double] = [:]

    public init() {}

    /// Whether `text` is new at `now`: not said in the `within` seconds before.
    public func first(_ text: String, at now: Double, within: Double) -> Bool {
        lock.withLock {
            said = said.filter { now - $0.value < within }
            guard said[text] == nil else { return false }
            said[text] = now
            return true
        }
    }
}

import Foundation

/// Why and whether a run should stop, set from a signal handler, a timer or the loop itself.
/// The first request stops the run after the frame being answered; a second interrupt also cancels
/// that frame's answer.
public final class StopSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var why: String?
    public let cancellation = Cancellation()

    public init() {}

    public var reason: String? { lock.withLock { why } }
    public var isRequested: Bool { reason != nil }

    /// Asks the run to stop; returns false when it was asked already.
    @discardableResult
    public func request(_ reason: String) -> Bool {
        let first = lock.withLock { () -> Bool in
            guard why == nil else { return false }
            why = reason
            return true
        }
        if first { cancellation.windDown() }
        return first
    }

    /// A signal: the first stops after this frame, the next cancels its answer too.
    public func interrupt(_ name: String) {
        if !request(name) { cancellation.cancel() }
    }
}

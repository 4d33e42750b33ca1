import Foundation

/// A request to re-read the rules (SIGHUP), set from any thread and taken by the loop before its
/// next frame. A request that comes while the model is still loading waits for the loop.
public final class ReloadRequest: @unchecked Sendable {
    private let lock = NSLock()
    private var pending = false

    public init() {}

    public func ask() { lock.withLock { pending = true } }

    /// Whether a reload was asked since the last take.
    public func take() -> Bool {
        lock.withLock {
            defer { pending = false }; return pending
        }
    }
}

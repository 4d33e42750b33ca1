import Foundation

/// How many of one kind of C handle are alive now: each handle class counts itself in on a
/// successful init and out in its deinit, so a test can inject a late failure and prove that
/// nothing was leaked or freed twice.
public final class LiveCount: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0

    public init() {}

    public var value: Int { lock.withLock { n } }
    public func up() { lock.withLock { n += 1 } }
    public func down() { lock.withLock { n -= 1 } }
}

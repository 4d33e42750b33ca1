import Foundation

/// A flag set once and read from any thread (a signal handler's thread asks whether the watch has
/// begun).
public final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    public init() {}

    public var isSet: Bool { lock.withLock { value } }
    public func set() { lock.withLock { value = true } }
}

import Foundation

/// Standard output or standard error, written without trapping. A reader that went away (EPIPE:
/// `lookd watch | head`) closes the stream for good: later writes are dropped, and `onClosed` is
/// called once, so a watch can end its run and still write its records. lookd ignores SIGPIPE
/// (`Platform.ignoreBrokenPipes`), so a closed pipe is an error to handle, not a death.
public final class StandardStream: @unchecked Sendable {
    public static let output = StandardStream(fd: STDOUT_FILENO, name: "standard output")
    public static let error = StandardStream(fd: STDERR_FILENO, name: "standard error")

    public let fd: Int32
    public let name: String
    private let lock = NSLock()
    private var closedReason: String?
    private var handlers: [@Sendable (String) -> Void] = []

    init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    /// Why the stream closed (`Broken pipe`), nil while it is open.
    public var closed: String? { lock.withLock { closedReason } }

    /// Calls `handler` once when the stream's reader goes away (at once if it has gone).
    public func onClosed(_ handler: @escaping @Sendable (String) -> Void) {
        let reason: String? = lock.withLock {
            if closedReason == nil { handlers.append(handler) }
            return closedReason
        }
        if let reason { handler(reason) }
    }

    /// Writes `text`; false when it could not be written (the stream is closed, or the write failed).
    @discardableResult
    public func write(_ text: String) -> Bool {
        guard !text.isEmpty else { return true }
        let (result, fire): (FileOutput.Result?, [@Sendable (String) -> Void]) = lock.withLock {
            guard closedReason == nil else { return (nil, []) }
            let result = FileOutput.write(fd, text)
            guard result.error == EPIPE else { return (result, []) }
            closedReason = result.reason
            defer { handlers = [] }
            return (result, handlers)
        }
        for handler in fire { handler(result?.reason ?? "closed") }
        return result?.error == nil && result != nil
    }
}

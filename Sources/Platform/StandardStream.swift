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

    /// The live lines on a terminal (`live`), one a key in the order they came, and how many are drawn.
    private var board: [(key: String, line: String, done: Bool)] = []
    private var drawn = 0

    /// Shows `line` as `key`'s live line on a terminal, written over in place: one line a key (a
    /// camera each), redrawn below whatever else is written meanwhile.
    public func live(_ key: String, _ line: String) {
        // A line wider than the terminal would wrap, and the board could not be drawn over in place.
        var size = winsize()
        let width = ioctl(fd, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 1 ? Int(size.ws_col) - 1 : Int.max
        let line = line.count > width ? String(line.prefix(width)) : line
        lock.withLock {
            if let i = board.firstIndex(where: { $0.key == key }) { board[i].line = line } else { board.append((key, line, false)) }
            _ = FileOutput.write(fd, erase + drawing)
        }
    }

    /// `key`'s live line is final; once every key's is, the board stays as drawn and what follows
    /// is written below it.
    public func endLive(_ key: String) {
        lock.withLock {
            guard let i = board.firstIndex(where: { $0.key == key }) else { return }
            board[i].done = true
            guard board.allSatisfy(\.done) else { return }
            if drawn > 0 { _ = FileOutput.write(fd, "\n") }
            (board, drawn) = ([], 0)
        }
    }

    /// The lock held: the sequence that takes the drawn board off the screen (the cursor ends where
    /// its first line began).
    private var erase: String {
        guard drawn > 0 else { return "" }
        return "\r" + (drawn > 1 ? "\u{1B}[\(drawn - 1)A" : "") + "\u{1B}[J"
    }

    /// The lock held: the board's lines, each cleared first, the cursor left at the last one's end.
    private var drawing: String {
        drawn = board.count
        return board.map { "\u{1B}[2K" + $0.line }.joined(separator: "\n")
    }

    /// Writes `text`; false when it could not be written (the stream is closed, or the write failed).
    /// On a terminal with live lines, the text goes above them and they are drawn again below it.
    @discardableResult
    public func write(_ text: String) -> Bool {
        guard !text.isEmpty else { return true }
        let (result, fire): (FileOutput.Result?, [@Sendable (String) -> Void]) = lock.withLock {
            guard closedReason == nil else { return (nil, []) }
            let live = drawn > 0
            let result = FileOutput.write(fd, live ? erase + text + (text.hasSuffix("\n") ? "" : "\n") + drawing : text)
            guard result.error == EPIPE else { return (result, []) }
            closedReason = result.reason
            defer { handlers = [] }
            return (result, handlers)
        }
        for handler in fire { handler(result?.reason ?? "closed") }
        return result?.error == nil && result != nil
    }
}

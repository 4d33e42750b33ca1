import Foundation

/// Turns SIGINT and SIGTERM into a call on a thread of lookd's own instead of ending the process, so
/// that a run can stop at the next token or frame and still write what it has.
///
/// A real handler (sigaction) writes the signal's number into a pipe, which a thread reads: unlike a
/// handler that ignores the signal and hopes to observe it, no thread of the process can lose it.
public final class SignalTrap {
    private let signals: [Int32]

    public init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        SignalPipe.shared.handler = handler
        for sig in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { sig in SignalPipe.notify(sig) }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(sig, &action, nil)
        }
    }

    deinit {
        for sig in signals { signal(sig, SIG_DFL) }
        SignalPipe.shared.handler = nil
    }
}

/// The pipe between the signal handler and the thread that calls the Swift handler.
private final class SignalPipe: @unchecked Sendable {
    static let shared = SignalPipe()
    /// The write end, read by the async-signal-safe handler.
    nonisolated(unsafe) static var writeEnd: Int32 = -1

    private let lock = NSLock()
    private var _handler: (@Sendable (Int32) -> Void)?
    var handler: (@Sendable (Int32) -> Void)? {
        get { lock.withLock { _handler } }
        set { lock.withLock { _handler = newValue } }
    }

    private init() {
        var fds: [Int32] = [-1, -1]
        pipe(&fds)
        Self.writeEnd = fds[1]
        let readEnd = fds[0]
        let thread = Thread { [unowned self] in
            var byte: UInt8 = 0
            while read(readEnd, &byte, 1) == 1 { self.handler?(Int32(byte)) }
        }
        thread.name = "lookd signals"
        thread.start()
    }

    /// Called in the signal handler: only write(2), which is async-signal-safe.
    static func notify(_ sig: Int32) {
        var byte = UInt8(truncatingIfNeeded: sig)
        _ = write(writeEnd, &byte, 1)
    }
}

import Dispatch
import Foundation

/// Turns SIGINT and SIGTERM into a call on a queue instead of ending the process, so that a run can
/// stop at the next token or frame and still write what it has.
final class SignalTrap {
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32] = [SIGINT, SIGTERM], handler: @escaping @Sendable (Int32) -> Void) {
        for sig in signals {
            signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { handler(sig) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
    }
}

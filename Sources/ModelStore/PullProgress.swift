import Foundation
import LookCore
import Platform

/// The progress of a download on standard error: one updating line on a terminal, a line every
/// ten seconds (and at the end) otherwise.
public final class PullProgress: @unchecked Sendable {
    private let tty = isatty(STDERR_FILENO) == 1
    private let lock = NSLock()
    private var lastLine = -Double.infinity
    private let clock: any Clock
    private var lastFile = ""

    public init(clock: any Clock) { self.clock = clock }

    public func report(_ p: Downloader.Progress) {
        lock.withLock {
            let done = p.total.map { p.bytes >= $0 } ?? false
            var line = "\(p.file): \(Quantity.bytes(p.bytes))"
            if let total = p.total, total > 0 {
                line = "\(p.file): \(Int(Double(p.bytes) / Double(total) * 100))% · \(Quantity.bytes(p.bytes)) of \(Quantity.bytes(total))"
                if p.bytesPerSecond > 0, !done {
                    line += " · \(Quantity.bytes(Int64(p.bytesPerSecond)))/s · \(Quantity.duration(Double(total - p.bytes) / p.bytesPerSecond)) left"
                }
            }
            if tty {
                StandardStream.error.write("\u{1B}[2K\r\(line)\(done ? "\n" : "")")
            } else if done || p.file != lastFile || clock.now() - lastLine >= 10 {
                StandardStream.error.write("lookd: \(line)\n")
                lastLine = clock.now()
            }
            lastFile = p.file
        }
    }
}

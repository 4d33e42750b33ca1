import Foundation
import LookCore
import ModelStore

/// The progress of a download on standard error: one updating line on a terminal, a line every
/// ten seconds (and at the end) otherwise.
final class PullProgress: @unchecked Sendable {
    private let tty = Terminal.stderrIsTTY
    private let lock = NSLock()
    private var lastLine = Date.distantPast
    private var lastFile = ""

    func report(_ p: Downloader.Progress) {
        lock.withLock {
            let done = p.total.map { p.bytes >= $0 } ?? false
            var line = "\(p.file): \(Self.bytes(p.bytes))"
            if let total = p.total, total > 0 {
                line = "\(p.file): \(Int(Double(p.bytes) / Double(total) * 100))% · \(Self.bytes(p.bytes)) of \(Self.bytes(total))"
                if p.bytesPerSecond > 0, !done {
                    line += " · \(Self.bytes(Int64(p.bytesPerSecond)))/s · \(Self.duration(Double(total - p.bytes) / p.bytesPerSecond)) left"
                }
            }
            if tty {
                StandardStream.error.write("\u{1B}[2K\r\(line)\(done ? "\n" : "")")
            } else if done || p.file != lastFile || Date().timeIntervalSince(lastLine) >= 10 {
                StandardStream.error.write("lookd: \(line)\n")
                lastLine = Date()
            }
            lastFile = p.file
        }
    }

    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = Double(n)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 { value /= 1000; unit += 1 }
        return unit == 0 ? "\(n) B" : String(format: value < 10 ? "%.2f %@" : "%.1f %@", value, units[unit])
    }

    static func duration(_ s: Double) -> String {
        guard s.isFinite else { return "?" }
        if s < 90 { return "\(Int(s.rounded())) s" }
        if s < 5400 { return "\(Int((s / 60).rounded())) min" }
        return String(format: "%.1f h", s / 3600)
    }
}

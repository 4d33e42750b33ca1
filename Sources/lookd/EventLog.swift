import Foundation
import LookCore

/// The JSON Lines event log: one object per event, `t` (ISO 8601) and `event` first, appended with
/// one write per line, so a process killed at any moment loses nothing it had logged.
final class EventLog: @unchecked Sendable {
    let path: String?
    private let handle: FileHandle?
    private let lock = NSLock()

    /// Opens `path` for appending (creating it); nil keeps no log.
    init(path: String?) throws(CommandFailure) {
        self.path = path
        guard let path else { handle = nil; return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw CommandFailure(code: .failure, message: "The event log \(path) cannot be opened: \(String(cString: strerror(errno))).")
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Appends one event.
    func write(_ event: String, _ fields: [(String, JSON)] = []) {
        let line = JSON.object([("t", .string(Timestamp.text(Date()))), ("event", .string(event))] + fields).text() + "\n"
        guard let handle else { return }
        lock.withLock { handle.write(Data(line.utf8)) }
    }
}

/// The records' times: ISO 8601 with milliseconds (`2026-11-29T15:04:42.764Z`), one formatter for all.
enum Timestamp {
    private static let lock = NSLock()
    nonisolated(unsafe) private static let formatter: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    static func text(_ date: Date) -> String { lock.withLock { formatter.string(from: date) } }
    static func date(_ text: String) -> Date? { lock.withLock { formatter.date(from: text) } }
}

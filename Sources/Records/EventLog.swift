import Foundation
import LookCore

/// The JSON Lines event log: one object per event, `t` (ISO 8601) and `event` first, appended with
/// one write per line, so a process killed at any moment loses nothing it had logged.
public final class EventLog: @unchecked Sendable {
    public let path: String?
    private let handle: FileHandle?
    private let lock = NSLock()

    /// Opens `path` for appending (creating it); nil keeps no log.
    public init(path: String?) throws(RecordsError) {
        self.path = path
        guard let path else { handle = nil; return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw .cannotOpen(what: "event log", path: path, reason: String(cString: strerror(errno)))
        }
        handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    /// Appends one event.
    public func write(_ event: String, _ fields: [(String, JSON)] = []) {
        let line = JSON.object([("t", .string(Timestamp.text(Date()))), ("event", .string(event))] + fields).text() + "\n"
        guard let handle else { return }
        lock.withLock { handle.write(Data(line.utf8)) }
    }
}

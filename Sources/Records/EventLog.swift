import Foundation
import LookCore
import Platform

/// The JSON Lines event log: one object per event, `t` (ISO 8601) and `event` first, appended with
/// one write per line, so a process killed at any moment loses nothing it had logged.
///
/// A write that fails (a full disk, a file past its size limit) never ends the watch: a line cut
/// short is taken back out, so every line in the log parses; the failure is reported once, and
/// once more when lines can be written again, with how many were lost (also logged as `log_gap`).
/// `reopen()` (SIGUSR1) starts writing to a new file at the same path after a rotation.
public final class EventLog: @unchecked Sendable {
    public let path: String?
    /// Whether this run made the file (it was not there before): a run that never started removes it.
    public let madeFile: Bool
    private var fd: Int32
    private let lock = NSLock()
    private var outage = Outage()
    private var lost = 0
    /// How write failures are reported (the journal by default).
    private let report: @Sendable (Log.Level, String) -> Void
    /// The clock each line's time is read on.
    private let clock: any Clock
    /// The camera every line names, in a watch of cameras (each camera's log shares the file); the
    /// only camera of a watch of one source is named by none.
    private let camera: CameraName

    /// Opens `path` for appending (creating it); nil keeps no log.
    public init(
        path: String?, camera: CameraName = .only, clock: any Clock,
        report: @escaping @Sendable (Log.Level, String) -> Void = { Log.shared.log($0, $1) }
    ) throws(RecordsError) {
        self.path = path
        self.report = report
        (self.clock, self.camera) = (clock, camera)
        guard let path else {
            (fd, madeFile) = (-1, false)
            return
        }
        var st = stat()
        madeFile = lstat(path, &st) != 0 && errno == ENOENT
        fd = try Self.open(path)
    }

    deinit { if fd >= 0 { close(fd) } }

    private static func open(_ path: String) throws(RecordsError) -> Int32 {
        do throws(SafeFile.Failure) {
            return try SafeFile.openForAppend(path)
        } catch {
            throw .cannotOpen(what: "event log", path: path, reason: error.reason)
        }
    }

    /// Appends one event. Only the records write lines, each from a typed event (`EventRecorder`).
    func write(_ event: String, _ fields: [(String, JSON)] = []) {
        let line = self.line(event, fields)
        guard path != nil else { return }
        var notes: [(Log.Level, String)] = []
        lock.withLock {
            if let reason = append(line) {
                lost += 1
                if outage.failed(reason) {
                    notes.append((.error, "The event log \(path!) cannot be written: \(reason). Its lines are lost until it can."))
                }
            } else if let lost = outage.succeeded() {
                notes.append((.notice, "The event log \(path!) can be written again; \(lost) line\(lost == 1 ? " was" : "s were") lost."))
                // The gap itself is recorded, so a reader of the log knows lines are missing here.
                _ = append(self.line("log_gap", [("lost", .int(lost))]))
            }
        }
        for (level, text) in notes { report(level, text) }
    }

    /// Lines that could not be written in the whole run (a full disk, a file past its size limit).
    public var lostLines: Int { lock.withLock { lost } }

    /// Starts a new file at the path (after logrotate moved the old one away): the next line goes to
    /// the new file; no line is split between the two.
    public func reopen(firstLine: String? = nil) throws(RecordsError) {
        guard let path else { return }
        let new = try Self.open(path)
        let old = lock.withLock { () -> Int32 in
            defer {
                fd = new
                // Under the same lock, so that it is the new file's first line.
                if let firstLine { _ = append(firstLine) }
            }
            return fd
        }
        close(old)
    }

    /// SIGUSR1: `reopen()`, then a `log_reopened` line first in the new file; a failure is reported
    /// and lines go on to the old file.
    public func reopenAfterRotation() {
        do {
            try reopen(firstLine: self.line("log_reopened", [("path", .optional(path))]))
        } catch {
            report(.error, "\(error.description) Lines go on to the old file.")
        }
    }

    /// Writes one line whole; on a failure, takes back what part of it went out. Returns why it failed.
    private func append(_ line: String) -> String? {
        var st = stat()
        let before = fstat(fd, &st) == 0 && st.st_mode & S_IFMT == S_IFREG ? st.st_size : nil
        let result = FileOutput.write(fd, line)
        guard let reason = result.reason else { return nil }
        if result.written > 0, let before { ftruncate(fd, before) }
        return reason
    }

    func line(_ event: String, _ fields: [(String, JSON)]) -> String {
        let named = camera.recordFields
        return JSON.object([("t", .string(Timestamp.text(clock.date()))), ("event", .string(event))] + named + fields).text() + "\n"
    }
}

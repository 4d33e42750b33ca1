import Foundation
import Platform

/// lookd's one logger: lines to standard error, with a level threshold.
/// Under journald (`JOURNAL_STREAM` names standard error) each line carries its `<N>` priority prefix.
public final class Log: @unchecked Sendable {
    /// Syslog priorities, as journald reads them.
    public enum Level: Int, Sendable, Comparable, CaseIterable {
        case error = 3, warning = 4, notice = 5, info = 6, debug = 7

        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }

        /// `error`, `warning`, `notice`, `info` or `debug` (also `warn`).
        public init?(name: String) {
            switch name.lowercased() {
            case "error": self = .error
            case "warning", "warn": self = .warning
            case "notice": self = .notice
            case "info": self = .info
            case "debug": self = .debug
            default: return nil
            }
        }
    }

    /// The process's logger; its threshold comes from `LOOKD_LOG` (default `notice`).
    public static let shared = Log(
        threshold: ProcessInfo.processInfo.environment["LOOKD_LOG"].flatMap(Level.init(name:)) ?? .notice)

    private let lock = NSLock()
    private var _threshold: Level
    private let journal: Bool
    private let clearsLine: Bool
    private let write: @Sendable (String) -> Void

    public init(
        threshold: Level, journal: Bool = Log.stderrIsJournal(), clearsLine: Bool = isatty(STDERR_FILENO) == 1,
        write: @escaping @Sendable (String) -> Void = { StandardStream.error.write($0) }
    ) {
        self._threshold = threshold
        self.journal = journal
        self.clearsLine = clearsLine
        self.write = write
    }

    public var threshold: Level {
        get { lock.withLock { _threshold } }
        set { lock.withLock { _threshold = newValue } }
    }

    public func log(_ level: Level, _ message: @autoclosure () -> String) {
        guard level <= threshold else { return }
        // One line per message, and nothing in it that drives a terminal.
        // … and no secret: a URL's password, token or key is masked (Secrets).
        let named = Self.camera.lineStart
        let text = named + Secrets.maskedPasswords(in: message()).withVisibleControls(keepingNewlines: true)
        // On a terminal, the line first clears what is there: the watch's live line has no line
        // break until it is written over, and a message must not run into it.
        let line = journal ? "<\(level.rawValue)>\(text)\n" : "\(clearsLine ? "\u{1B}[2K\r" : "")lookd: \(text)\n"
        lock.withLock {
            write(line)
            if level <= .notice {
                latest.append(text)
                if latest.count > 3 { latest.removeFirst() }
            }
        }
    }

    /// The camera the calling thread watches: in a watch of cameras, its lines begin with its name.
    public static var camera: CameraName {
        get { Thread.current.threadDictionary["lookd.camera"] as? CameraName ?? .only }
        set { Thread.current.threadDictionary["lookd.camera"] = newValue }
    }

    private var latest: [String] = []
    /// The latest three lines at notice or above, oldest first (what `lookd status` shows).
    public var recent: [String] { lock.withLock { latest } }

    public func error(_ m: @autoclosure () -> String) { log(.error, m()) }
    public func warning(_ m: @autoclosure () -> String) { log(.warning, m()) }
    public func notice(_ m: @autoclosure () -> String) { log(.notice, m()) }
    public func info(_ m: @autoclosure () -> String) { log(.info, m()) }
    public func debug(_ m: @autoclosure () -> String) { log(.debug, m()) }

    /// True when systemd connected standard error to the journal (`JOURNAL_STREAM=dev:inode`).
    public static func stderrIsJournal() -> Bool {
        guard let stream = ProcessInfo.processInfo.environment["JOURNAL_STREAM"] else { return false }
        var st = stat()
        guard fstat(2, &st) == 0 else { return false }
        return stream == "\(st.st_dev):\(st.st_ino)"
    }
}

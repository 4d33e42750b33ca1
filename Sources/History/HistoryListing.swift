import Foundation
import LookCore
import Records
import Status

/// `lookd history`'s side of the history: where it is when no file is named, and the fires as a
/// table a person reads.
public enum HistoryListing {
    /// The service's history (its record folder is /var/lib/lookd).
    public static let servicePath = "/var/lib/lookd/" + HistoryStore.fileName

    /// What `lookd history` says when it finds none.
    public static let noneFound = "No history: no watch is running, and none is at ./\(HistoryStore.fileName) or \(servicePath)."

    /// The history to read when none is named: the running watch's (its status file names it), else
    /// one in the current folder, else the service's, else the last stopped watch's. Nil when none exists; a sentence when several
    /// running watches keep histories of their own (one is not picked for the user).
    public static func found() -> Result<String?, Ambiguous> {
        let running = Set(StatusFile.running().compactMap { $0.status["history"] as? String }).sorted()
        if running.count > 1 {
            return .failure(
                Ambiguous(text: "Several watches are running, each with its history: \(running.joined(separator: ", ")); give --db FILE."))
        }
        // A running watch's first, then the current folder's, then the service's; a stopped watch's
        // (its status file lingers) last, and only when none of those is there.
        let stopped = (try? StatusFile.read(explicit: nil))?.status["history"] as? String
        return .success([running.first, HistoryStore.fileName, servicePath, stopped].compactMap { $0 }.first(where: isHistoryFile))
    }

    /// Whether `path` can be a history: a regular file (a pipe, a device or a folder is never opened:
    /// opening a FIFO with no writer waits for ever).
    static func isHistoryFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// The history `lookd history` reads: `db`, else the instance's, else the one `found()`.
    public static func path(db: String?, instance: String?) -> Result<String, Ambiguous> {
        if let db {
            var st = stat()
            guard stat(db, &st) == 0 else { return .failure(Ambiguous(text: "\(db): \(String(cString: strerror(errno))).")) }
            guard st.st_mode & S_IFMT == S_IFREG else { return .failure(Ambiguous(text: "\(db) is not a history: it is not a regular file.")) }
            return .success(db)
        }
        if let instance { return self.instance(instance) }
        return found().flatMap { $0.map { .success($0) } ?? .failure(Ambiguous(text: noneFound)) }
    }

    /// The history of the instance lookd@`name`, as its status file names it.
    public static func instance(_ name: String) -> Result<String, Ambiguous> {
        switch StatusFile.instance(name) {
        case .failure(let why): return .failure(Ambiguous(text: why.description))
        case .success(let path):
            guard let history = (try? StatusFile.read(explicit: path))?.status["history"] as? String else {
                return .failure(Ambiguous(text: "lookd@\(name) keeps no history (its status file \(path) names none)."))
            }
            return .success(history)
        }
    }

    /// Why the history to read is not known, in a sentence.
    public struct Ambiguous: Error, CustomStringConvertible {
        public let text: String
        public var description: String { text }
    }

    /// One line a fire, newest first: its local time, the rule, the reaction, P(yes), the
    /// description, the snapshot and the clip; what the fires' own words hold is shown, never obeyed.
    public static func table(_ fires: [HistoryFire], path: String, zone: TimeZone = .current) -> String {
        guard !fires.isEmpty else { return "No fires in \(path) match." }
        let format = DateFormatter()
        (format.locale, format.timeZone, format.dateFormat) = (Locale(identifier: "en_US_POSIX"), zone, "yyyy-MM-dd HH:mm:ss")
        // The camera's column, when the fires came from several cameras.
        let cameras = fires.contains { $0.camera.isNamed }
        let rows = fires.map { fire in
            ([format.string(from: fire.time)] + (cameras ? [fire.camera.name] : []) + [
                fire.condition, fire.reaction, fire.confidence.map { String(format: "%.2f", $0) } ?? "–", fire.description ?? "",
                fire.snapshot ?? "", fire.clip ?? "",
            ]).map { $0.withVisibleControls() }
        }
        let header = ["time"] + (cameras ? ["camera"] : []) + ["rule", "reaction", "P(yes)", "description", "snapshot", "clip"]
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        let line = { (cells: [String]) in
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n\(Quantity.count(fires.count, "fire")) from \(path)"
    }
}

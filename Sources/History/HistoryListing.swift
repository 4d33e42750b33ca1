import Foundation
import LookCore
import Records

/// `lookd history`'s side of the history: where it is when no file is named, and the fires as a
/// table a person reads.
public enum HistoryListing {
    /// The service's history (its record folder is /var/lib/lookd).
    public static let servicePath = "/var/lib/lookd/" + HistoryStore.fileName

    /// What `lookd history` says when it finds none.
    public static let noneFound = "No history: no watch is running, and none is at ./\(HistoryStore.fileName) or \(servicePath)."

    /// The history to read when none is named: the running watch's (its status file names it), else
    /// one in the current folder, else the service's. Nil when none exists.
    public static func found() -> String? {
        let running = (try? StatusFile.read(explicit: nil))?.status["history"] as? String
        return [running, HistoryStore.fileName, servicePath].compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0) }
    }

    /// One line a fire, newest first: its local time, the rule, the reaction, P(yes), the
    /// description, the snapshot and the clip; what the fires' own words hold is shown, never obeyed.
    public static func table(_ fires: [HistoryFire], path: String, zone: TimeZone = .current) -> String {
        guard !fires.isEmpty else { return "No fires in \(path) match." }
        let format = DateFormatter()
        (format.locale, format.timeZone, format.dateFormat) = (Locale(identifier: "en_US_POSIX"), zone, "yyyy-MM-dd HH:mm:ss")
        let rows = fires.map { fire in
            [
                format.string(from: fire.time), fire.condition, fire.reaction, fire.confidence.map { String(format: "%.2f", $0) } ?? "–",
                fire.description ?? "", fire.snapshot ?? "", fire.clip ?? "",
            ].map { $0.withVisibleControls() }
        }
        let header = ["time", "rule", "reaction", "P(yes)", "description", "snapshot", "clip"]
        let widths = header.indices.map { i in ([header] + rows).map { $0[i].count }.max() ?? 0 }
        let line = { (cells: [String]) in
            zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        return ([line(header)] + rows.map(line)).joined(separator: "\n") + "\n\(Quantity.count(fires.count, "fire")) from \(path)"
    }
}

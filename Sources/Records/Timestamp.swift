import Foundation

/// The records' times: ISO 8601 with milliseconds (`2026-11-29T15:04:42.764Z`), one formatter for all.
public enum Timestamp {
    private static let lock = NSLock()
    nonisolated(unsafe) private static let formatter: ISO8601DateFormatter = {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f
    }()

    public static func text(_ date: Date) -> String { lock.withLock { formatter.string(from: date) } }
    public static func date(_ text: String) -> Date? { lock.withLock { formatter.date(from: text) } }
}

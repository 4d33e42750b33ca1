import Foundation

/// Which fires to list: those whose rule's words hold `rule` (any case), of the `cameras` named
/// (every camera's when none is; a watch of one source names none), between `since` and `until`, newest first, `limit` of them after skipping `offset`.
public struct HistoryQuery: Sendable, Equatable {
    public var rule: String?
    public var cameras: Set<String> = []
    public var since: Date?
    public var until: Date?
    public var limit = 50
    public var offset = 0

    public init(rule: String? = nil, since: Date? = nil, until: Date? = nil, limit: Int = 50, offset: Int = 0) {
        (self.rule, self.since, self.until, self.limit, self.offset) = (rule, since, until, limit, offset)
    }

    /// A time as a person gives it: `2026-12-03`, `2026-12-03 08:30` (or with `T` and seconds) in
    /// `zone`, an ISO 8601 time with its zone, or a span back from `now`: `90s`, `30m`, `2h`, `7d`.
    /// Nil when it is none of these.
    public static func time(_ text: String, now: Date, zone: TimeZone = .current) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let last = text.last, let unit = ["s": 1.0, "m": 60, "h": 3600, "d": 86400][String(last)], let n = Double(text.dropLast()), n >= 0 {
            return now.addingTimeInterval(-n * unit)
        }
        let iso = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime]] {
            iso.formatOptions = options
            if let date = iso.date(from: text) { return date }
        }
        let local = DateFormatter()
        local.locale = Locale(identifier: "en_US_POSIX")
        local.timeZone = zone
        for format in ["yyyy-MM-dd", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss"] {
            local.dateFormat = format
            if let date = local.date(from: text) { return date }
        }
        return nil
    }
}

import Foundation

/// When a rule is active (`when_active:`), in local time: ranges separated by `;`, each a time range
/// with days of the week before it when it applies to some days only.
///
///     when_active: "22:00-06:00"                       # every night (past midnight: the night before's)
///     when_active: "Mon-Fri 08:00-18:00; Sat,Sun 10:00-12:00"
public struct Schedule: Sendable, Equatable {
    public struct Range: Sendable, Equatable {
        /// Days it starts on, 1 = Monday … 7 = Sunday; empty: every day.
        public var days: Set<Int>
        /// Minutes after midnight; `end` ≤ `start` runs past midnight.
        public var start: Int
        public var end: Int
    }

    public var ranges: [Range]
    public let text: String

    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

    /// Reads the text, or says what is wrong with it.
    static func parse(_ text: String) -> Result<Schedule, Problem> {
        var ranges: [Range] = []
        for part in text.split(separator: ";").map({ $0.trimmingCharacters(in: .whitespaces) }) where !part.isEmpty {
            let words = part.split(separator: " ").map(String.init)
            guard let span = words.last, let (start, end) = times(span) else {
                return .failure("when_active: \"\(part)\" needs a time range like 22:00-06:00 (24-hour, local time)")
            }
            guard start != end else {
                return .failure("when_active: \"\(part)\" starts and ends at the same time; for the whole day, leave when_active out")
            }
            var days = Set<Int>()
            for word in words.dropLast() {
                guard let d = Self.days(word) else {
                    return .failure("when_active: \"\(word)\" is not days of the week like Mon-Fri or Sat,Sun")
                }
                days.formUnion(d)
            }
            ranges.append(Range(days: days, start: start, end: end))
        }
        guard !ranges.isEmpty else { return .failure("when_active: needs a time range like 22:00-06:00") }
        return .success(Schedule(ranges: ranges, text: text))
    }

    private static func times(_ span: String) -> (Int, Int)? {
        // Every "-" counts: "-1:00-02:00" is three pieces, not a range from 1:00.
        let ends = span.split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let a = minutes(ends[0]), let b = minutes(ends[1]) else { return nil }
        return (a, b)
    }

    private static func minutes<S: StringProtocol>(_ t: S) -> Int? {
        let p = t.split(separator: ":", omittingEmptySubsequences: false)
        // Digits only: Int() would take "+1" or "-1" as an hour.
        guard p.count == 2, (1...2).contains(p[0].count), p[1].count == 2, p.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let h = Int(p[0]), let m = Int(p[1]), (0...24).contains(h), (0..<60).contains(m), h * 60 + m <= 1440
        else { return nil }
        return h * 60 + m
    }

    private static func days(_ word: String) -> Set<Int>? {
        var out = Set<Int>()
        for item in word.lowercased().split(separator: ",") {
            let ends = item.split(separator: "-").map { String($0.prefix(3)) }
            guard let a = ends.first.flatMap({ dayNames.firstIndex(of: $0) }) else { return nil }
            let b = ends.count == 2 ? dayNames.firstIndex(of: ends[1]) : a
            guard let b, ends.count <= 2 else { return nil }
            var d = a
            while true {
                out.insert(d + 1)
                if d == b { break }
                d = (d + 1) % 7
            }
        }
        return out
    }

    /// Whether the rule is active at `date` in `calendar`'s time zone.
    public func isActive(at date: Date, calendar: Calendar = .current) -> Bool {
        let parts = calendar.dateComponents([.weekday, .hour, .minute], from: date)
        let minute = (parts.hour ?? 0) * 60 + (parts.minute ?? 0)
        let today = ((parts.weekday ?? 1) + 5) % 7 + 1 // Calendar: 1 = Sunday; here 1 = Monday
        let yesterday = (today + 5) % 7 + 1
        return ranges.contains { r in
            if r.start < r.end { return (r.days.isEmpty || r.days.contains(today)) && minute >= r.start && minute < r.end }
            // Past midnight: the evening part belongs to today, the morning part to yesterday's range.
            if minute >= r.start { return r.days.isEmpty || r.days.contains(today) }
            return minute < r.end && (r.days.isEmpty || r.days.contains(yesterday))
        }
    }
}

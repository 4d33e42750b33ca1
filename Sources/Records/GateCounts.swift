import LookCore

/// The change gate's counts: frames offered (taken from the source), answered and skipped, over the
/// run and over the last hour (in one-minute buckets, so the memory stays flat).
public struct GateCounts: Sendable {
    public private(set) var offered = 0
    public private(set) var skipped = 0
    public var answered: Int { offered - skipped }
    /// (minute since the run's start, offered, skipped), the newest last; at most 60.
    private var minutes: [(minute: Int, offered: Int, skipped: Int)] = []

    public init() {}

    /// A frame taken at `t` seconds into the run, skipped or not.
    public mutating func add(skipped: Bool, at t: Double) {
        offered += 1
        if skipped { self.skipped += 1 }
        let minute = Int(t / 60)
        if minutes.last?.minute != minute { minutes.append((minute, 0, 0)) }
        minutes[minutes.count - 1].offered += 1
        if skipped { minutes[minutes.count - 1].skipped += 1 }
        minutes.removeAll { $0.minute <= minute - 60 }
    }

    /// The share of frames skipped over the run.
    public var skippedShare: Double? { offered > 0 ? Double(skipped) / Double(offered) : nil }

    /// The share skipped over the last hour before `t`.
    public func lastHourShare(at t: Double) -> Double? {
        let recent = minutes.filter { $0.minute > Int(t / 60) - 60 }
        let offered = recent.reduce(0) { $0 + $1.offered }
        return offered > 0 ? Double(recent.reduce(0) { $0 + $1.skipped }) / Double(offered) : nil
    }

    /// As the summary and the status file write it.
    public func json(at t: Double) -> JSON {
        .object([
            ("offered", .int(offered)), ("answered", .int(answered)), ("skipped", .int(skipped)),
            ("skipped_share", .optional(skippedShare, places: 4)), ("skipped_share_last_hour", .optional(lastHourShare(at: t), places: 4)),
        ])
    }
}

/// A writer that keeps failing (a full disk) is reported once when it starts failing and once when
/// it works again, with what was lost meanwhile: never one line per attempt.
public struct Outage: Sendable {
    public private(set) var reason: String?
    public private(set) var lost = 0

    public init() {}

    /// A failed attempt; true on the first of an outage (the one to report).
    public mutating func failed(_ reason: String) -> Bool {
        lost += 1
        defer { self.reason = reason }
        return self.reason == nil
    }

    /// A successful attempt; the number lost when it ends an outage, else nil.
    public mutating func succeeded() -> Int? {
        guard reason != nil else { return nil }
        defer { reason = nil; lost = 0 }
        return lost
    }
}

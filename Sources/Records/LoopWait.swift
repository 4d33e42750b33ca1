/// A wait the watch loop is in (a frame from the source, the model's answer, a pause after a
/// failure) and the longest it may last: the watchdog takes a loop inside a declared wait as
/// alive until that bound, and the status says what it waits for.
public struct LoopWait: Sendable, Equatable {
    public var what: String
    /// Seconds.
    public var atMost: Double

    public init(_ what: String, atMost: Double) {
        self.what = what
        self.atMost = atMost
    }
}

/// Whether the watch loop is alive, for systemd's watchdog (a value; `ServiceOutput` feeds it the
/// loop's events and asks it on its own thread): alive when an event came within `within` seconds,
/// or while the loop is in a declared wait not yet past its bound. A loop stuck past its bound is
/// not alive, and systemd restarts it; one waiting on a silent server within its bound is.
public struct LoopLiveness: Sendable, Equatable {
    public private(set) var lastBeat: Double
    public private(set) var wait: LoopWait?
    public private(set) var waitSince: Double = 0

    public init(at now: Double) { lastBeat = now }

    /// An event from the loop.
    public mutating func beat(at now: Double) { lastBeat = now }

    /// The loop entered `wait`, or (nil) left its wait.
    public mutating func waiting(_ wait: LoopWait?, at now: Double) {
        self.wait = wait
        waitSince = now
        lastBeat = now
    }

    public func isAlive(at now: Double, within: Double) -> Bool {
        if now - lastBeat <= within { return true }
        guard let wait else { return false }
        return now - waitSince <= wait.atMost
    }

    /// `the model's answer (42 s)` while a wait has lasted `longer` seconds or more; else nil.
    public func waitNote(at now: Double, longer: Double = 5) -> String? {
        guard let wait, now - waitSince >= longer else { return nil }
        return "waiting for \(wait.what) (\(Int(saturating: now - waitSince)) s)"
    }
}

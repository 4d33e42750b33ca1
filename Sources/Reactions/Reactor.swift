import Foundation
import LookCore

/// What became of one reaction.
public struct ReactionResult: Sendable, Equatable {
    /// Whether lookd did what the reaction says (false when this build cannot, or it failed).
    public var performed: Bool
    /// What the rule's row shows now: `×3`, `log`, `chime`, `say`, `ripple · water`.
    public var shown: String
    /// Why it was not performed, or a detail worth keeping.
    public var note: String?

    public init(performed: Bool, shown: String, note: String? = nil) {
        self.performed = performed
        self.shown = shown
        self.note = note
    }
}

/// Something that carries out a rule's reaction when it fires.
public protocol ReactionPerformer: AnyObject, Sendable {
    /// Performs `reaction` for the rule with `condition`, fired at `time`.
    func perform(_ reaction: Reaction, condition: String, at time: Date) -> ReactionResult
}

/// Carries out reactions. Counts and log lines are done here; sounds, speech, timers and effects
/// are recorded as not performed until their own parts of lookd exist.
public final class Reactor: ReactionPerformer, @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var lines: [String] = []
    private let log: Log
    private let timestamp: @Sendable (Date) -> String

    public init(log: Log = .shared, timestamp: @escaping @Sendable (Date) -> String = Reactor.clockTime) {
        self.log = log
        self.timestamp = timestamp
    }

    public func perform(_ reaction: Reaction, condition: String, at time: Date) -> ReactionResult {
        switch reaction {
        case .count:
            let n = lock.withLock { () -> Int in counts[condition, default: 0] += 1; return counts[condition]! }
            return ReactionResult(performed: true, shown: "×\(n)")
        case .log:
            let line = "\(timestamp(time)) \(condition)"
            lock.withLock {
                lines.append(line)
                if lines.count > 3 { lines.removeFirst(lines.count - 3) }
            }
            log.notice("log: \(line)")
            return ReactionResult(performed: true, shown: "log", note: line)
        case .sound, .say, .timer, .effect:
            return ReactionResult(performed: false, shown: reaction.name,
                                  note: "\(reaction.kind) reactions are not in this build yet; the fire is recorded")
        }
    }

    /// How many times a count rule has counted.
    public func count(for condition: String) -> Int { lock.withLock { counts[condition] ?? 0 } }

    /// The latest three log lines, oldest first.
    public var latestLines: [String] { lock.withLock { lines } }

    /// Forgets a rule's count (a rule whose words changed on reload).
    public func forget(_ condition: String) { _ = lock.withLock { counts.removeValue(forKey: condition) } }

    /// `14:03:27`, the local time of day.
    public static let clockTime: @Sendable (Date) -> String = { date in
        let f = DateFormatter()
        f.dateFormat = "HH:mm:ss"
        return f.string(from: date)
    }
}

import Foundation
import LookCore

/// `timer: 4` (inline: `timer:4`): a countdown of that many minutes, restarted by each fire; at its
/// end, the chime and "Time's up".
public struct TimerReaction: ReactionKind {
    public static let key = "timer"
    public static var inlineHelp: String { "timer:<minutes>" }
    public static var inlineExample: String { "timer:5" }
    public static let maxMinutes = 24.0 * 60

    public var minutes: Double

    public init(minutes: Double) { self.minutes = minutes }

    public var name: String { "timer" }
    public var inlineForm: String { "timer:\(Quantity.number(minutes))" }
    public var recordFields: [(String, JSON)] { [("minutes", .number(minutes))] }
    public var failures: String? { nil }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> TimerReaction {
        let text = try value.word(key)
        let t = text.trimmingCharacters(in: .whitespaces)
        guard let minutes = Double(t), minutes.isFinite else { throw value.problem("a timer is a number of minutes, not \"\(text)\"") }
        guard minutes > 0 else { throw value.problem("a timer needs a positive number of minutes, not \(t)") }
        guard minutes <= maxMinutes else { throw value.problem("a timer of \(t) minutes is longer than a day") }
        return TimerReaction(minutes: minutes)
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> TimerReaction { try read(.inline(text)) }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        let restarted = services.startTimer(fire.condition, minutes: minutes)
        return ReactionResult(performed: true, shown: Self.clock(minutes * 60), note: restarted ? "restarted" : nil)
    }

    /// The time left while the countdown runs, else its length.
    public func shown(_ condition: String, _ services: any ReactionServices) -> String {
        services.timeLeft(condition).map { Self.clock($0) + " left" } ?? "timer \(Quantity.number(minutes)) min"
    }

    /// `4:00`, `0:59`: minutes and seconds left.
    public static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded(.up))
        return "\(s / 60):" + String(format: "%02d", s % 60)
    }
}

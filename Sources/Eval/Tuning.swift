import Foundation
import LookCore
import Rules

/// Replays recorded answers through `RuleMachine` for a grid of firing settings, with no model call,
/// and ranks them against the truth: fewest missed spans and false fires together, then the shortest
/// median delay, then the setting nearest the rule's own.
public enum Tuning {
    /// One setting tried and how it scored.
    public struct Trial: Sendable {
        public var settings: RuleSettings
        public var cooldown: Double
        public var score: RuleScore
        /// Missed spans and false fires together: what the ranking minimises first.
        public var errors: Int { score.missedSpans + score.falseFires }
    }

    /// The grid: cooldowns, `confirm N of M`, and `min_confidence` (tried only when answers have confidences).
    public struct Grid: Sendable {
        public var cooldowns: [Double] = [0, 3, 10, 30, 60, 300]
        public var confirms: [(Int, Int)] = [(1, 1), (2, 2), (2, 3), (3, 3), (3, 5)]
        public var minConfidences: [Double?] = [nil, 0.5, 0.6, 0.7, 0.8, 0.9]
        public init() {}
        public var size: Int { cooldowns.count * confirms.count * minConfidences.count }
    }

    /// One rule's answers in order, read out of the frames once for all the settings replayed.
    struct Series {
        var t: [Double] = [], answers: [Answer] = [], confidence: [Double?] = [], index: [Int] = []

        init(_ condition: String, frames: [Recording.Frame]) {
            for frame in frames {
                guard let answer = frame.answers[condition] else { continue }
                t.append(frame.t)
                answers.append(answer)
                confidence.append(frame.confidence[condition])
                index.append(frame.index)
            }
        }
    }

    /// The fires `settings` would have made on `frames` (a rule's answers, in order).
    public static func replay(
        _ condition: String, frames: [Recording.Frame], settings: RuleSettings, cooldown: Double
    ) -> [Recording.Fire] {
        replay(condition, Series(condition, frames: frames), settings: settings, cooldown: cooldown)
    }

    static func replay(_ condition: String, _ series: Series, settings: RuleSettings, cooldown: Double) -> [Recording.Fire] {
        var machine = RuleMachine(settings: [settings], cooldown: cooldown)
        var fires: [Recording.Fire] = []
        var answer = [Answer.unread], confidence: [Double?] = [nil]
        for i in series.t.indices {
            (answer[0], confidence[0]) = (series.answers[i], series.confidence[i])
            if machine.step(answer, confidences: confidence, at: series.t[i])[0] == .fired {
                fires.append(Recording.Fire(condition: condition, t: series.t[i], frame: series.index[i]))
            }
        }
        return fires
    }

    /// Every setting of the grid for one rule, best first; `base` is the rule's own (tried too).
    public static func trials(
        _ condition: String, recording: Recording, spans: [TruthFile.Span], base: RuleSettings, cooldown: Double, grid: Grid = Grid(),
        tolerance: Double = 3
    ) -> [Trial] {
        let series = Series(condition, frames: recording.frames)
        let hasConfidence = series.confidence.contains { $0 != nil }
        var candidates: [(RuleSettings, Double)] = [(base, base.cooldown ?? cooldown)]
        for c in grid.cooldowns {
            for (n, m) in grid.confirms {
                for p in hasConfidence ? grid.minConfidences : [nil] {
                    var s = base
                    (s.cooldown, s.confirm, s.window, s.minConfidence) = (c, n, m, p)
                    candidates.append((s, c))
                }
            }
        }
        let hours = recording.duration / 3600
        let trials = candidates.map { settings, cooldown in
            let fires = replay(condition, series, settings: settings, cooldown: cooldown)
            let score = Scoring.score(
                condition: condition, frames: [], fires: fires, spans: spans, hours: hours, tolerance: tolerance, settings: settings.summary)
            return Trial(settings: settings, cooldown: cooldown, score: score)
        }
        return trials.enumerated().sorted { a, b in
            // Better first (fewer errors, then a shorter delay), then closer to the rule's own, then as tried.
            if isBetter(a.element, than: b.element) { return true }
            if isBetter(b.element, than: a.element) { return false }
            let na = distance(a.element, from: base, cooldown: cooldown), nb = distance(b.element, from: base, cooldown: cooldown)
            if na != nb { return na < nb }
            return a.offset < b.offset
        }.map(\.element)
    }

    /// How far a trial's settings are from the rule's own: how many of them differ.
    static func distance(_ trial: Trial, from base: RuleSettings, cooldown: Double) -> Int {
        let s = trial.settings
        return (trial.cooldown != (base.cooldown ?? cooldown) ? 1 : 0) + (s.confirm != base.confirm || s.window != base.window ? 1 : 0)
            + (s.minConfidence != base.minConfidence ? 1 : 0)
    }

    /// Whether `a` scores better than `b`: fewer errors, or as few and a shorter median delay.
    public static func isBetter(_ a: Trial, than b: Trial) -> Bool {
        if a.errors != b.errors { return a.errors < b.errors }
        let da = a.score.medianDelay ?? .infinity, db = b.score.medianDelay ?? .infinity
        return da < db - 1e-9
    }

    /// The settings lines to put under the rule's `when:` in the rules file (those that differ from
    /// the defaults), indented as a rule's keys are: the rule keeps its reaction.
    public static func lines(_ trial: Trial, defaultCooldown: Double) -> [String] {
        var out: [String] = []
        if trial.cooldown != defaultCooldown { out.append("    cooldown: \(number(trial.cooldown))") }
        if trial.settings.window > 1 || trial.settings.confirm > 1 {
            out.append("    confirm: \(trial.settings.confirm) of \(trial.settings.window)")
        }
        if let p = trial.settings.minConfidence { out.append("    min_confidence: \(number(p))") }
        return out
    }

    public static func number(_ x: Double) -> String { x.plainText }
}

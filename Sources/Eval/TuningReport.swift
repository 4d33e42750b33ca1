import Foundation
import LookCore
import Rules

extension Tuning {
    /// `lookd tune`'s report on `recording`: for each rule, its own settings' score and the best
    /// three that beat it, then the lines to paste under each rule's `when:`, then what was replayed
    /// and how fast (timed on `clock`). `rules`: the rules whose own settings are the starting point
    /// (the defaults with `cooldown` when nil).
    public static func report(
        _ recording: Recording, truth: TruthFile, rules: [Rule]?, cooldown: Double, tolerance: Double, clock: any Clock
    ) -> String {
        let grid = Grid()
        let started = clock.now()
        var replayed = 0, tried = 0
        var lines: [String] = [], paste: [String] = []
        for condition in recording.conditions {
            let base = rules?.first { $0.condition == condition }?.settings ?? RuleSettings()
            let trials = trials(
                condition, recording: recording, spans: truth.spans(of: condition) ?? [], base: base, cooldown: cooldown, grid: grid,
                tolerance: tolerance)
            replayed += trials.count * recording.frames.filter { $0.answers[condition] != nil }.count
            tried += trials.count
            let own = trials.first { $0.settings == base && $0.cooldown == (base.cooldown ?? cooldown) } ?? trials[0]
            lines += ["\(condition) (\(Quantity.count(truth.spans(of: condition)?.count ?? 0, "span"))):", "  now:  \(summary(own))"]
            let better = trials.filter { isBetter($0, than: own) }
            if better.isEmpty { lines.append("  nothing better: no setting tried scores better than the rule's own") }
            for (n, trial) in better.prefix(3).enumerated() { lines.append("  #\(n + 1):   \(summary(trial))") }
            if let best = better.first {
                let settings = Self.lines(best, defaultCooldown: cooldown)
                paste +=
                    ["  # \(condition): under its when:, beside its reaction"]
                    + (settings.isEmpty ? ["  # (the defaults: remove its settings)"] : settings)
            }
        }
        let seconds = clock.now() - started
        lines.append(
            paste.isEmpty
                ? "\nNothing to change: every rule's own settings score best on this recording."
                : "\nThe settings to put under each rule's when: in the rules file (its reaction stays):\n" + paste.joined(separator: "\n"))
        lines.append(
            "\n\(Quantity.count(recording.frames.count, "frame")), \(Quantity.count(tried, "setting")) tried over \(Quantity.count(recording.conditions.count, "rule")): \(replayed) frames replayed in "
                + String(format: "%.3f s (%.0f frames a second)", seconds, Double(replayed) / max(seconds, 1e-9)))
        return lines.joined(separator: "\n")
    }

    /// One trial in a line: `1 of 4 spans missed · 2 false fires · median delay 1.5 s · cooldown 5 s`.
    static func summary(_ t: Trial) -> String {
        let s = t.score
        let delay = s.medianDelay.map { String(format: "median delay %.1f s", $0) } ?? "no delay"
        var words = t.settings.summary
        if t.settings.cooldown == nil { words = "cooldown \(number(t.cooldown)) s" + (words.isEmpty ? "" : " · " + words) }
        return "\(s.missedSpans) of \(Quantity.count(s.spans, "span")) missed · \(Quantity.count(s.falseFires, "false fire")) · \(delay) · \(words)"
    }
}

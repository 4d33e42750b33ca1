import Foundation
import Records
import Rules

/// The page's timelines: each rule's last `capacity` answered frames (their answers, confidences
/// and held-back yeses) and its fires, kept from the events, drawn by `Timeline` (the same drawing as
/// `lookd eval`'s report), with the truth's spans when the page serves an eval.
final class LiveTimeline: @unchecked Sendable {
    private let lock = NSLock()
    private let capacity: Int
    private let truth: TruthFile?
    private var rules: [String] = []
    private var rows: [String: Timeline.Row] = [:]
    private var latest: Double = 0

    init(capacity: Int = 300, truth: TruthFile? = nil) {
        self.capacity = capacity
        self.truth = truth
    }

    func receive(_ event: WatchEvent) {
        switch event {
        case .rules(let change) where change.action != .rejected: lock.withLock { rules = change.rules.map(\.condition) }
        case .answered(let frame): answered(frame)
        case .fired(let fire, _, _): lock.withLock { rows[fire.condition]?.fires.append(latest) }
        default: break
        }
    }

    private func answered(_ frame: FrameOutcome) {
        let t = frame.sourceT ?? frame.captureT
        lock.withLock {
            latest = t
            for (i, condition) in rules.enumerated() where i < frame.answers.count && !frame.inactive.contains(i) {
                var row = rows[condition] ?? Timeline.Row(condition: condition, answers: [], fires: [], spans: truth?.spans(of: condition) ?? [])
                row.answers.append((t, frame.answers[i], frame.confidence?[i] ?? nil))
                if frame.heldBack[i] != nil { row.held.append(t) }
                if row.answers.count > capacity { row.answers.removeFirst(row.answers.count - capacity) }
                let since = row.answers.first?.t ?? t
                row.fires.removeAll { $0 < since }
                row.held.removeAll { $0 < since }
                rows[condition] = row
            }
        }
    }

    /// Rule `number`'s (from 1) timeline as SVG; nil when there is no such rule.
    func svg(rule number: Int) -> String? {
        lock.withLock {
            guard number >= 1, number <= rules.count else { return nil }
            let condition = rules[number - 1]
            let row = rows[condition] ?? Timeline.Row(condition: condition, answers: [], fires: [], spans: truth?.spans(of: condition) ?? [])
            let start = row.answers.first?.t ?? 0
            return Timeline.svg(row, start: start, end: max(row.answers.last?.t ?? 1, start + 1), width: 480, height: 28)
        }
    }
}

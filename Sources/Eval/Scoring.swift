import Foundation
import Rules

/// How one rule did against the truth.
/// - Answers: each answered frame's yes (or no) against whether its time is inside a truth span;
///   the same with `min_confidence` applied (a yes below it counts as no).
/// - Fires: a fire is true when it comes inside a span or within `tolerance` seconds after one ends
///   (the model's time); a span with no true fire is missed; a span's delay is from its start to its
///   first true fire.
public struct RuleScore: Sendable, Equatable {
    public var condition: String
    public var settings: String
    /// Answered frames, and of them: yes in a span, yes outside, no in a span, no outside; unread.
    public var answered = 0
    public var truePositive = 0, falsePositive = 0, falseNegative = 0, trueNegative = 0, unread = 0
    /// The same counts with `min_confidence` applied (nil when no answer had a confidence).
    public var minConfidence: Double?
    public var confident: (tp: Int, fp: Int, fn: Int)?
    /// Fires: true, false, and the spans in all and missed; the delays of the spans that fired.
    public var trueFires = 0, falseFires = 0
    public var spans = 0, missedSpans = 0
    public var delays: [Double] = []
    /// Hours of watching the false fires are counted over.
    public var hours = 0.0
    /// The fires' descriptions, for a person to read: (time, text).
    public var descriptions: [(t: Double, text: String)] = []
    /// How well its confidences mean what they say (nil: no answer had one).
    public var calibration: Calibration?

    public static func == (a: RuleScore, b: RuleScore) -> Bool {
        a.condition == b.condition && a.answered == b.answered && a.truePositive == b.truePositive && a.falsePositive == b.falsePositive
            && a.falseNegative == b.falseNegative && a.trueFires == b.trueFires && a.falseFires == b.falseFires && a.spans == b.spans
            && a.missedSpans == b.missedSpans && a.delays == b.delays
    }

    /// Of the yeses, the share that were right; of the frames in a span, the share answered yes (nil: none).
    public var precision: Double? { Self.ratio(truePositive, truePositive + falsePositive) }
    public var recall: Double? { Self.ratio(truePositive, truePositive + falseNegative) }
    public var confidentPrecision: Double? { confident.flatMap { Self.ratio($0.tp, $0.tp + $0.fp) } }
    public var confidentRecall: Double? { confident.flatMap { Self.ratio($0.tp, $0.tp + $0.fn) } }
    /// Of the spans, the share that fired (nil: no span).
    public var spanRecall: Double? { Self.ratio(spans - missedSpans, spans) }
    public var falsePerHour: Double { hours > 0 ? Double(falseFires) / hours : 0 }
    public var medianDelay: Double? {
        guard !delays.isEmpty else { return nil }
        let sorted = delays.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    public var worstDelay: Double? { delays.max() }

    static func ratio(_ a: Int, _ b: Int) -> Double? { b > 0 ? Double(a) / Double(b) : nil }
}

/// Scores rules against a truth file.
public enum Scoring {
    /// The score of each rule the recording has (a rule the truth does not name has no span: it is
    /// never in view). `minConfidence` per rule: its setting, for the answers' second figures.
    public static func score(
        _ recording: Recording, truth: TruthFile, tolerance: Double = 3, minConfidence: [String: Double] = [:]
    ) -> [RuleScore] {
        recording.conditions.map { condition in
            score(
                condition: condition, frames: recording.frames, fires: recording.fires.filter { $0.condition == condition },
                spans: truth.spans(of: condition) ?? [], hours: recording.duration / 3600, tolerance: tolerance,
                minConfidence: minConfidence[condition], settings: recording.settings[condition] ?? "")
        }
    }

    /// One rule's score from its answered frames and its fires.
    public static func score(
        condition: String, frames: [Recording.Frame], fires: [Recording.Fire], spans: [TruthFile.Span], hours: Double, tolerance: Double,
        minConfidence: Double? = nil, settings: String = ""
    ) -> RuleScore {
        var s = RuleScore(condition: condition, settings: settings)
        s.hours = hours
        s.minConfidence = minConfidence
        var confident = (tp: 0, fp: 0, fn: 0)
        var anyConfidence = false
        for frame in frames {
            guard let answer = frame.answers[condition] else { continue }
            s.answered += 1
            let inView = spans.contains { $0.contains(frame.t) }
            switch (answer, inView) {
            case (.yes, true): s.truePositive += 1
            case (.yes, false): s.falsePositive += 1
            case (.no, true): s.falseNegative += 1
            case (.no, false): s.trueNegative += 1
            case (.unread, _): s.unread += 1
            }
            let p = frame.confidence[condition]
            if let p, answer != .unread {
                anyConfidence = true
                s.calibration = s.calibration ?? Calibration()
                s.calibration?.add(p, inView: inView)
            }
            // As the firing rule has it: a yes below min_confidence counts as no; one without a confidence stands.
            let yes = answer == .yes && (minConfidence == nil || p == nil || p! >= minConfidence!)
            if answer != .unread {
                if yes && inView { confident.tp += 1 } else if yes { confident.fp += 1 } else if inView { confident.fn += 1 }
            }
        }
        if anyConfidence { s.confident = confident }
        s.spans = spans.count
        var fired = [Bool](repeating: false, count: spans.count)
        for fire in fires {
            if let i = spans.firstIndex(where: { fire.t >= $0.start && fire.t <= $0.end + tolerance }) {
                s.trueFires += 1
                if !fired[i] {
                    fired[i] = true
                    s.delays.append(max(0, fire.t - spans[i].start))
                }
            } else {
                s.falseFires += 1
            }
            if let text = fire.description { s.descriptions.append((fire.t, text)) }
        }
        s.missedSpans = fired.filter { !$0 }.count
        return s
    }
}

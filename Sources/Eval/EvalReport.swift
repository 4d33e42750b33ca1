import Foundation
import LookCore
import Records
import Rules

/// What `lookd eval` says: a table a rule (then the overall figures), the same as JSON, and a
/// self-contained HTML page with a timeline a rule; and whether every rule met the standard asked.
public struct EvalReport: Sendable {
    public var scores: [RuleScore]
    public var recording: Recording
    public var truth: TruthFile
    public var tolerance: Double
    /// The standard (`--min-recall`, `--max-false-per-hour`), when asked.
    public var minRecall: Double?
    public var maxFalsePerHour: Double?

    public init(
        scores: [RuleScore], recording: Recording, truth: TruthFile, tolerance: Double, minRecall: Double? = nil, maxFalsePerHour: Double? = nil
    ) {
        (self.scores, self.recording, self.truth, self.tolerance) = (scores, recording, truth, tolerance)
        (self.minRecall, self.maxFalsePerHour) = (minRecall, maxFalsePerHour)
    }

    /// The rules that missed the standard, each with why.
    public var failures: [String] {
        scores.flatMap { s -> [String] in
            var out: [String] = []
            if let minRecall, let recall = s.spanRecall, recall < minRecall {
                out.append("\(s.condition): fired on \(percent(recall)) of its spans, under --min-recall \(percent(minRecall))")
            }
            if let maxFalsePerHour, s.falsePerHour > maxFalsePerHour {
                out.append("\(s.condition): \(decimal(s.falsePerHour)) false fires an hour, over --max-false-per-hour \(decimal(maxFalsePerHour))")
            }
            return out
        }
    }

    /// The overall figures: every rule's counts together.
    public var overall: RuleScore {
        var o = RuleScore(condition: "all rules", settings: "")
        o.hours = recording.duration / 3600
        for s in scores {
            o.answered += s.answered
            (o.truePositive, o.falsePositive, o.falseNegative, o.trueNegative) = (
                o.truePositive + s.truePositive, o.falsePositive + s.falsePositive, o.falseNegative + s.falseNegative, o.trueNegative + s.trueNegative
            )
            o.unread += s.unread
            (o.trueFires, o.falseFires, o.spans, o.missedSpans) = (
                o.trueFires + s.trueFires, o.falseFires + s.falseFires, o.spans + s.spans, o.missedSpans + s.missedSpans
            )
            o.delays += s.delays
            if let c = s.confident {
                let sum = o.confident ?? (0, 0, 0)
                o.confident = (sum.tp + c.tp, sum.fp + c.fp, sum.fn + c.fn)
            }
            if let c = s.calibration {
                o.calibration = o.calibration ?? Calibration()
                o.calibration?.add(c)
            }
        }
        return o
    }

    /// The terminal's table.
    public var table: String {
        let header = [
            "rule", "answers P / R", "min conf. P / R", "ECE / Brier", "fires true / false", "false / h", "spans missed", "delay median / worst",
        ]
        let rows = (scores + [overall]).map { s -> [String] in
            [
                s.condition, "\(percent(s.precision)) / \(percent(s.recall))",
                s.confident == nil ? "–" : "\(percent(s.confidentPrecision)) / \(percent(s.confidentRecall))",
                s.calibration.map { String(format: "%.3f / %.3f", $0.expectedError ?? 0, $0.brier ?? 0) } ?? "–",
                "\(s.trueFires) / \(s.falseFires)", decimal(s.falsePerHour), "\(s.missedSpans) of \(s.spans)",
                s.medianDelay == nil ? "–" : "\(decimal(s.medianDelay!)) s / \(decimal(s.worstDelay!)) s",
            ]
        }
        let widths = header.indices.map { c in ([header] + rows).map { $0[c].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { c, text in text.padding(toLength: widths[c], withPad: " ", startingAt: 0) }.joined(separator: "  ")
                .trimmingCharacters(in: .whitespaces)
        }
        var out = [line(header), widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")]
        out += rows.dropLast().map(line)
        out.append(widths.map { String(repeating: "─", count: $0) }.joined(separator: "  "))
        out.append(line(rows.last!))
        let minutes = recording.duration / 60
        out.append("\(recording.frames.count) frames answered over \(decimal(minutes)) min of video. P / R: precision / recall of yes at the")
        out.append("answered frames. A fire is true inside a span or within \(decimal(tolerance)) s after it ends. ECE: expected")
        out.append("calibration error of P(yes) over 10 bins; Brier: mean of (P(yes) − in view)²; 0 is perfect for both.")
        for s in scores where !s.descriptions.isEmpty {
            out.append("\(s.condition), as described:")
            out += s.descriptions.map { "  \(TruthFile.time($0.t))  \($0.text)" }
        }
        return out.joined(separator: "\n")
    }

    /// The JSON (`--json FILE`).
    public var json: JSON {
        func rule(_ s: RuleScore) -> JSON {
            .object([
                ("condition", .string(s.condition)), ("settings", .string(s.settings)), ("answered", .int(s.answered)),
                ("true_positive", .int(s.truePositive)), ("false_positive", .int(s.falsePositive)), ("false_negative", .int(s.falseNegative)),
                ("true_negative", .int(s.trueNegative)), ("unread", .int(s.unread)), ("precision", .optional(s.precision, places: 4)),
                ("recall", .optional(s.recall, places: 4)), ("min_confidence", .optional(s.minConfidence, places: 3)),
                ("precision_min_confidence", .optional(s.confidentPrecision, places: 4)),
                ("recall_min_confidence", .optional(s.confidentRecall, places: 4)), ("true_fires", .int(s.trueFires)),
                ("false_fires", .int(s.falseFires)), ("false_fires_per_hour", .number(s.falsePerHour, places: 3)), ("spans", .int(s.spans)),
                ("missed_spans", .int(s.missedSpans)), ("span_recall", .optional(s.spanRecall, places: 4)),
                ("delays_s", .array(s.delays.map { .number($0) })), ("median_delay_s", .optional(s.medianDelay)),
                ("worst_delay_s", .optional(s.worstDelay)), ("calibration", s.calibration?.json ?? .null),
                ("descriptions", .array(s.descriptions.map { .object([("t", .number($0.t)), ("text", .string($0.text))]) })),
            ])
        }
        return .object([
            ("truth", .string(truth.source)), ("frames", .int(recording.frames.count)), ("seconds", .number(recording.duration)),
            ("tolerance_s", .number(tolerance)), ("rules", .array(scores.map(rule))), ("overall", rule(overall)),
            ("met", .bool(failures.isEmpty)), ("failures", .strings(failures)),
        ])
    }

    /// The HTML report (`--html FILE`): no external assets.
    public var html: String {
        let start = recording.frames.first?.t ?? 0, end = max(recording.frames.last?.t ?? 1, start + 1)
        let rows = Timeline.rows(recording, truth: truth)
        var body = [
            "<h1>lookd eval</h1>",
            "<p class=\"meta\">\(Timeline.escape((truth.source as NSString).lastPathComponent)) · \(recording.frames.count) frames · \(decimal(recording.duration / 60)) min</p>",
        ]
        body.append("<pre>\(Timeline.escape(table))</pre>")
        body.append(
            "<h2>Timelines</h2><p class=\"meta\">green bands: truth spans · bars: answers (height P(yes)); green yes, grey no, orange unread · red: fires · hollow: yeses held back</p>"
        )
        for row in rows {
            body.append("<h3>\(Timeline.escape(row.condition))</h3>" + Timeline.svg(row, start: start, end: end))
            body.append("<div class=\"axis\"><span>\(TruthFile.time(start))</span><span>\(TruthFile.time(end))</span></div>")
        }
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><title>lookd eval</title><style>
            body { background: #121317; color: #e6e6ea; font: 14px system-ui, sans-serif; margin: 24px; }
            pre { background: #1b1d22; padding: 12px; overflow-x: auto; } .meta { color: #9aa0aa; } h3 { margin: 18px 0 6px; font-weight: 500; }
            .axis { display: flex; justify-content: space-between; width: 960px; color: #9aa0aa; font-size: 12px; }
            </style></head><body>
            \(body.joined(separator: "\n"))
            </body></html>

            """
    }
}

func percent(_ x: Double?) -> String { x.map { String(format: "%.0f %%", $0 * 100) } ?? "–" }
func decimal(_ x: Double) -> String { String(format: x < 10 ? "%.2f" : "%.1f", x) }

import Foundation
import Rules

/// A rule's answers over time as inline SVG, shared by `lookd eval`'s HTML report and lookd's page
/// (a drawing of what was recorded, below both):
/// the truth spans as bands, each answered frame as a bar (height: P(yes), or full without one;
/// colour: yes, no, unread), fires as red marks on top and yeses held back as hollow ones.
public enum Timeline {
    public struct Row: Sendable {
        public var condition: String
        public var answers: [(t: Double, answer: Answer, confidence: Double?)]
        public var fires: [Double]
        public var held: [Double]
        public var spans: [TruthFile.Span]

        public init(
            condition: String, answers: [(t: Double, answer: Answer, confidence: Double?)], fires: [Double], held: [Double] = [],
            spans: [TruthFile.Span] = []
        ) {
            (self.condition, self.answers, self.fires, self.held, self.spans) = (condition, answers, fires, held, spans)
        }
    }

    /// One SVG of `row` over `start`…`end` seconds, `width` pixels wide.
    public static func svg(_ row: Row, start: Double, end: Double, width: Int = 960, height: Int = 44) -> String {
        let span = max(end - start, 1e-6)
        let w = Double(width), h = Double(height), bar = max(1.5, min(6, w / Double(max(row.answers.count, 1)) * 0.8))
        func x(_ t: Double) -> String { String(format: "%.1f", (t - start) / span * (w - 8) + 4) }
        var parts = [
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\" viewBox=\"0 0 \(width) \(height)\" role=\"img\">"
        ]
        parts.append("<title>\(escape(row.condition))</title>")
        parts.append("<rect x=\"0\" y=\"0\" width=\"\(width)\" height=\"\(height)\" fill=\"#1b1d22\"/>")
        for s in row.spans {
            let x0 = (s.start - start) / span * (w - 8) + 4, x1 = (s.end - start) / span * (w - 8) + 4
            parts.append(
                String(format: "<rect class=\"truth\" x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"%.0f\" fill=\"#2f4f3a\"/>", x0, max(1, x1 - x0), h))
        }
        let base = h - 4, tall = h - 16
        for a in row.answers {
            let level = a.answer == .unread ? 0.5 : (a.confidence.map { a.answer == .yes ? $0 : max($0, 0.08) } ?? 1)
            let colour = a.answer == .yes ? "#4caf50" : a.answer == .no ? "#6b7280" : "#f0a020"
            let top = base - level * tall
            let kind = a.answer == .yes ? "yes" : a.answer == .no ? "no" : "unread"
            let box = String(format: "y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"", top, bar, level * tall)
            parts.append("<rect class=\"\(kind)\" x=\"\(x(a.t))\" \(box) fill=\"\(colour)\"/>")
        }
        for t in row.held { parts.append("<circle class=\"held\" cx=\"\(x(t))\" cy=\"6\" r=\"3.5\" fill=\"none\" stroke=\"#f0a020\"/>") }
        for t in row.fires { parts.append("<path class=\"fire\" d=\"M\(x(t)) 11 l-5 -9 h10 z\" fill=\"#e53935\"/>") }
        parts.append("</svg>")
        return parts.joined()
    }

    public static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
            .replacingOccurrences(of: "\"", with: "&quot;")
    }
}

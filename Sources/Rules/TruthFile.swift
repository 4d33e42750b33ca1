import Foundation
import LookCore

/// What a labelled clip really shows, rule by rule (the rule's words), for `lookd eval` and
/// `lookd tune`: the spans of video time when the thing is in view, and for a photo folder what each
/// photo shows.
///
///     truth:
///       - when: a person at the door
///         spans: ["0:05-0:12", "1:40-1:52"]   # m:ss, h:mm:ss or seconds; fractions allowed
///       - when: a parcel                       # never in view
///         spans: []
///     photos:                                  # the photo-folder form, as --truth reads it
///       sign: [no, no, yes]
public struct TruthFile: Sendable, Equatable {
    /// One span of video time, in seconds from the start.
    public struct Span: Sendable, Equatable {
        public var start: Double
        public var end: Double
        public init(_ start: Double, _ end: Double) { (self.start, self.end) = (start, end) }
        public func contains(_ t: Double) -> Bool { t >= start && t <= end }
        public var text: String { "\(TruthFile.time(start))-\(TruthFile.time(end))" }
    }

    /// The spans of each rule, by its words, in file order.
    public var rules: [(condition: String, spans: [Span], line: Int, column: Int)]
    public var photos: [String: [Answer]]
    public var source: String

    public static func == (a: TruthFile, b: TruthFile) -> Bool {
        a.source == b.source && a.photos == b.photos && a.rules.map(\.condition) == b.rules.map(\.condition)
            && a.rules.map(\.spans) == b.rules.map(\.spans)
    }

    public func spans(of condition: String) -> [Span]? { rules.first { $0.condition == condition }?.spans }

    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(RulesError) -> TruthFile {
        try parse(try RulesFile.text(path, what: "truth file", limit: 4 << 20), source: path)
    }

    /// Checks a truth file written as YAML text; `source` names it in messages.
    public static func parse(_ text: String, source: String) throws(RulesError) -> TruthFile {
        let root = try RulesFile.root(text, source: source)
        func fail(_ node: YAMLNode, _ problem: String) -> RulesError {
            RulesError(source: source, line: node.mark.line, column: node.mark.column, problem: problem)
        }
        guard let root, case .mapping(let top, _) = root else {
            throw RulesError(source: source, problem: "a truth file has truth: (a list of rules and their spans) or photos:")
        }
        var file = TruthFile(rules: [], photos: [:], source: source)
        for (key, value) in top {
            switch key.text {
            case "truth":
                guard case .sequence(let items, _) = value else { throw fail(value, "truth: is a list of \"- when: … spans: […]\"") }
                for item in items {
                    let (condition, spans, mark) = try rule(item, fail: fail)
                    if file.rules.contains(where: { $0.condition == condition }) { throw fail(item, "\"\(condition)\" is written twice") }
                    file.rules.append((condition, spans, mark.line, mark.column))
                }
            case "photos":
                guard case .mapping(let pairs, _) = value else { throw fail(value, "photos: maps each photo's name to its answers, [yes, no, …]") }
                for (name, answers) in pairs {
                    guard let photo = name.text, case .sequence(let words, _) = answers else {
                        throw fail(answers, "a photo's truth is a list of yes and no, one a rule")
                    }
                    file.photos[photo] = try words.map { word throws(RulesError) -> Answer in
                        switch word.text?.lowercased() {
                        case "yes", "y", "true": return .yes
                        case "no", "n", "false": return .no
                        default: throw fail(word, "a photo's answers are yes or no, not \(word.text.map { "\"\($0)\"" } ?? word.kind)")
                        }
                    }
                }
            default: throw fail(key, "unknown key \"\(key.text ?? key.kind)\"; a truth file has truth: and photos:")
            }
        }
        guard !file.rules.isEmpty || !file.photos.isEmpty else {
            throw RulesError(source: source, problem: "the truth file names no rule (truth:) and no photo (photos:)")
        }
        return file
    }

    private static func rule(_ item: YAMLNode, fail: (YAMLNode, String) -> RulesError) throws(RulesError) -> (String, [Span], YAMLNode.Mark) {
        guard case .mapping(let pairs, _) = item else { throw fail(item, "each entry is \"- when: …\" and \"spans: [\"0:05-0:12\", …]\"") }
        var condition: String?
        var mark = item.mark
        var spans: [Span]?
        for (key, value) in pairs {
            switch key.text {
            case "when":
                guard let text = value.text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
                    throw fail(value, "when: is the rule's words, as the rules file has them")
                }
                condition = text
                mark = value.mark
            case "spans":
                guard case .sequence(let list, _) = value else { throw fail(value, "spans: is a list such as [\"0:05-0:12\", \"1:40-1:52\"]") }
                var read: [Span] = []
                for node in list {
                    guard let text = node.text, let span = Self.span(text) else {
                        throw fail(
                            node, "a span is START-END in m:ss, h:mm:ss or seconds (\"0:05-0:12\"), not \(node.text.map { "\"\($0)\"" } ?? node.kind)"
                        )
                    }
                    if let last = read.last, span.start < last.end {
                        throw fail(node, "spans go in order without overlapping: \(span.text) starts before \(last.text) ends")
                    }
                    read.append(span)
                }
                spans = read
            default: throw fail(key, "unknown key \"\(key.text ?? key.kind)\"; an entry has when: and spans:")
            }
        }
        guard let condition else { throw fail(item, "this entry has no when:") }
        guard let spans else { throw fail(item, "\"\(condition)\" has no spans: (write spans: [] for a thing never in view)") }
        return (condition, spans, mark)
    }

    /// `0:05-0:12`, `1:02:03.5-1:02:09`, `5-12.5`: a span whose end comes after its start.
    static func span(_ text: String) -> Span? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = seconds(String(parts[0])), let end = seconds(String(parts[1])), end > start else { return nil }
        return Span(start, end)
    }

    /// The latest time a span may name: a year of watching.
    public static let longest: Double = 366 * 86_400

    /// `m:ss`, `h:mm:ss` or plain seconds, with fractions.
    static func seconds(_ text: String) -> Double? {
        let fields = text.trimmingCharacters(in: .whitespaces).split(separator: ":", omittingEmptySubsequences: false)
        guard (1...3).contains(fields.count) else { return nil }
        var total = 0.0
        for (i, field) in fields.enumerated() {
            guard let x = Double(field), x >= 0, x.isFinite else { return nil }
            if i > 0 && x >= 60 { return nil }
            total = total * 60 + x
        }
        // A span is at most a year from the start (longer is a typo, and a number no clock reaches).
        return total <= Self.longest ? total : nil
    }

    /// `1:05.5` or `0:07`.
    public static func time(_ seconds: Double) -> String {
        let t = seconds.isNaN ? 0 : min(max(seconds, 0), longest)
        let whole = Int(t)
        let fraction = t - Double(whole)
        let tail = fraction > 0.0001 ? String(format: "%.1f", fraction).dropFirst() : ""
        return whole >= 3600
            ? String(format: "%d:%02d:%02d", whole / 3600, whole / 60 % 60, whole % 60) + tail
            : String(format: "%d:%02d", whole / 60, whole % 60) + tail
    }

    /// The rules the truth names that the rules file has not (each a problem with its line), and the
    /// rules in force it says nothing about (each scored against no span: never in view).
    /// `lookd check`'s words on the truth at `path`: what it holds, then each of `rules` it never
    /// names (their things are never in view).
    public func summary(path: String, rules: [Rule]) -> (head: String, missing: [String]) {
        let count = self.rules.reduce(0) { $0 + $1.spans.count }
        let pictures = photos.isEmpty ? "" : ", \(Quantity.count(photos.count, "photo"))"
        return (
            "\nThe truth in \(path): \(Quantity.count(self.rules.count, "rule")), \(Quantity.count(count, "span"))\(pictures).",
            rules.filter { spans(of: $0.condition) == nil }.map { "  \($0.condition): not in the truth (never in view)" }
        )
    }

    public func problems(against rules: [Rule]) -> [RulesError] {
        let conditions = Set(rules.map(\.condition))
        return self.rules.filter { !conditions.contains($0.condition) }.map {
            RulesError(source: source, line: $0.line, column: $0.column, problem: "no rule \"\($0.condition)\" is in the rules file")
        }
    }
}

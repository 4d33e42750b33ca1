import LookCore

/// A fire's description: one sentence the model gave about the fired frame, or why none came
/// (the model failed, the frame's descriptions were past their bound), with its time and tokens.
public struct DescribeOutcome: Sendable, Equatable {
    /// The fire it describes (its number in the run), and its rule (from 0) and words.
    public var fire: Int
    public var rule: Int
    public var condition: String
    /// The question asked, and the answer (trimmed, on one line); nil when none came.
    public var question: String
    public var text: String?
    public var error: String?
    /// Seconds the model took, to its first token and in all, and the answer's tokens.
    public var seconds: Double
    public var firstToken: Double?
    public var tokens: Int

    public init(
        fire: Int, rule: Int, condition: String, question: String, text: String?, error: String? = nil, seconds: Double = 0,
        firstToken: Double? = nil, tokens: Int = 0
    ) {
        (self.fire, self.rule, self.condition, self.question, self.text, self.error) = (fire, rule, condition, question, text, error)
        (self.seconds, self.firstToken, self.tokens) = (seconds, firstToken, tokens)
    }

    /// The `described` event line's fields.
    public var eventFields: [(String, JSON)] {
        [
            ("fire", .int(fire)), ("rule", .int(rule + 1)), ("condition", .string(condition)), ("description", .optional(text)),
            ("error", .optional(error)), ("describe_ms", .number(seconds * 1000, places: 1)),
            ("first_token_ms", .optional(firstToken.map { $0 * 1000 }, places: 1)), ("tokens_out", .int(tokens)),
        ]
    }

    /// An answer as one line: spaces for its line breaks, no control characters, at most 500 characters.
    public static func sentence(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return String(flat.joined(separator: " ").withVisibleControls().prefix(500))
    }
}

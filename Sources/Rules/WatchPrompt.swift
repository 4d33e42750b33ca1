/// The one question a frame gets: every rule's condition as a numbered line.
///
///     Answer each question with Yes or No, each answer on its own numbered line.
///     1. Is there a chessboard?
///     2. Is there a lighthouse?
public enum WatchPrompt {
    public static let instruction = "Answer each question with Yes or No, each answer on its own numbered line."

    /// The prompt for `rules`; `extra` is a further instruction after the first (`--cells batch`
    /// asks the place inside the same prompt: Grounding's `PlaceQuestions.batch`).
    public static func text(for rules: [Rule], extra: String? = nil) -> String {
        var lines = [instruction]
        if let extra { lines.append(extra) }
        for (i, rule) in rules.enumerated() { lines.append("\(i + 1). Is there \(rule.condition)?") }
        return lines.joined(separator: "\n")
    }
}

/// The one question a frame gets: every rule's condition as a numbered line.
///
///     Answer each question with Yes or No, each answer on its own numbered line.
///     1. Is there a chessboard?
///     2. Is there a lighthouse?
public enum WatchPrompt {
    public static let instruction = "Answer each question with Yes or No, each answer on its own numbered line."

    /// `--cells batch`: the place asked inside the same prompt, a cell number after each Yes.
    public static let cellInstruction = "After a Yes, write the cell of a 3x3 grid (1-9, numbered left to right, top to bottom) that contains it, as in: 1. Yes 5"

    public static func text(for rules: [Rule], cells: Bool = false) -> String {
        var lines = [instruction]
        if cells { lines.append(cellInstruction) }
        for (i, rule) in rules.enumerated() { lines.append("\(i + 1). Is there \(rule.condition)?") }
        return lines.joined(separator: "\n")
    }
}

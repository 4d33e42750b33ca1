import LookCore

/// One rule's answer on one frame. `unread` (`?`) is never no, and never fires.
public enum Answer: String, Sendable, Codable, Equatable {
    case yes, no
    case unread = "?"
}

/// Reads the model's reply to the numbered prompt. Reading is total: any text gives one answer per
/// rule, never an error, and an answer is never credited to a rule it was not given for.
/// - A numbered line (`2. Yes`, `2) no`, `**2.** Yes.`) answers the rule with its number; two lines
///   for one rule that disagree make it `?`.
/// - Unnumbered lines count only when no line is numbered and there is exactly one line per rule,
///   each a bare yes or no (`Yes`, `no.`): then line `i` answers rule `i`. Anything else (`Sure!`
///   before the answers, a sentence) leaves every rule `?`.
/// - A line that says both yes and no (`Yes/No`, `Yes and no`, `Yes1. No`) or hedges (`maybe`,
///   `not sure`, a question mark) is `?`, as is one whose first word is neither.
public enum AnswerParser {
    public static func parse(_ reply: String, ruleCount: Int) -> [Answer] {
        var answers = [Answer](repeating: .unread, count: ruleCount)
        guard ruleCount > 0 else { return answers }
        let lines = reply.split(whereSeparator: \.isNewline).map { clean(String($0)) }.filter { !$0.isEmpty }
        var numbered = false
        var seen = Set<Int>()
        for line in lines {
            guard let (number, rest) = splitNumber(line) else { continue }
            numbered = true
            guard (1...ruleCount).contains(number) else { continue }
            let answer = word(rest)
            if seen.insert(number).inserted {
                answers[number - 1] = answer
            } else if answers[number - 1] != answer {
                answers[number - 1] = .unread
            }
        }
        if !numbered, lines.count == ruleCount, lines.allSatisfy(isBare) {
            for (i, line) in lines.enumerated() { answers[i] = word(line) }
        }
        return answers
    }

    /// What each numbered line says after its Yes (`2. Yes 7` → " 7"); nil for a rule whose line
    /// has no Yes. `--cells batch` reads the cell there (Grounding's `CellParser.batch`).
    public static func afterYes(_ reply: String, ruleCount: Int) -> [String?] {
        var cells = [String?](repeating: nil, count: ruleCount)
        guard ruleCount > 0 else { return cells }
        let lines = reply.split(whereSeparator: \.isNewline).map { clean(String($0)) }
        for line in lines {
            guard let (number, rest) = splitNumber(line), (1...ruleCount).contains(number),
                cells[number - 1] == nil, word(rest) == .yes
            else { continue }
            cells[number - 1] = String(rest.drop { !$0.isLetter }.dropFirst(3))
        }
        return cells
    }

    /// Drops Markdown emphasis and surrounding spaces.
    private static func clean(_ line: String) -> String {
        line.replacingOccurrences(of: "*", with: "").replacingOccurrences(of: "_", with: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// `12. Yes` → (12, "Yes"); also `12)`, `12:`, `12 -`.
    private static func splitNumber(_ line: String) -> (Int, String)? {
        let digits = line.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 4, let n = Int(digits) else { return nil }
        var rest = line.dropFirst(digits.count)
        guard let mark = rest.first, ".):-".contains(mark) || mark == " " else { return nil }
        rest = rest.drop { ".):- ".contains($0) }
        return (n, String(rest))
    }

    /// The answer a line's text gives: its first word when that is yes or no and nothing in the line
    /// says the other or hedges; else `?`.
    static func word(_ text: String) -> Answer {
        let words = text.lowercased().split { !$0.isLetter }.map(String.init)
        let answer: Answer
        switch words.first {
        case "yes": answer = .yes
        case "no": answer = .no
        default: return .unread
        }
        let other = answer == .yes ? "no" : "yes"
        if words.contains(other) || text.contains("?") { return .unread }
        if words.contains(where: hedges.contains) || text.lowercased().contains("not sure") { return .unread }
        return answer
    }

    /// Words that make a yes or no a guess.
    private static let hedges: Set<String> = [
        "maybe", "perhaps", "possibly", "probably", "unsure", "uncertain", "unclear", "might",
    ]

    /// A line that is only a yes or a no (with punctuation around it).
    private static func isBare(_ line: String) -> Bool {
        let words = line.lowercased().split { !$0.isLetter }
        return words.count == 1 && (words[0] == "yes" || words[0] == "no")
    }
}

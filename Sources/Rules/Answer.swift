import LookCore

/// One rule's answer on one frame. `unread` (`?`) is never no, and never fires.
public enum Answer: String, Sendable, Codable, Equatable {
    case yes, no
    case unread = "?"
}

/// Reads the model's reply to the numbered prompt: line `i` answers rule `i`.
/// A numbered line (`2. Yes`, `2) no`, `**2.** Yes.`) answers its number; when the reply has no
/// numbers, its lines answer in order. A line whose first word is not yes or no is `?`.
public enum AnswerParser {
    public static func parse(_ reply: String, ruleCount: Int) -> [Answer] {
        var answers = [Answer](repeating: .unread, count: ruleCount)
        guard ruleCount > 0 else { return answers }
        let lines = reply.split(whereSeparator: \.isNewline).map { clean(String($0)) }.filter { !$0.isEmpty }
        var numbered = false
        for line in lines {
            guard let (number, rest) = splitNumber(line) else { continue }
            numbered = true
            if (1...ruleCount).contains(number), answers[number - 1] == .unread {
                answers[number - 1] = word(rest)
            }
        }
        if !numbered {
            for (i, line) in lines.prefix(ruleCount).enumerated() { answers[i] = word(line) }
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

    /// The answer a text's first word gives.
    static func word(_ text: String) -> Answer {
        let first = text.lowercased().split { !$0.isLetter }.first.map(String.init) ?? ""
        switch first {
        case "yes": return .yes
        case "no": return .no
        default: return .unread
        }
    }
}

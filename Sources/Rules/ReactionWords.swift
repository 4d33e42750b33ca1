import Foundation
import LookCore
import ReactionDomain

/// A problem with one value, in words.
struct Problem: Error, ExpressibleByStringInterpolation {
    let text: String
    init(stringLiteral value: String) { text = value }
}

/// The words of rules shared by the rules file and the inline form: conditions, the reactions' keys
/// and the checks on them.
enum ReactionWords {
    /// The longest condition lookd takes: the numbered prompt repeats it, and the model reads it.
    static let maxConditionLength = 200

    /// The keys of a rule in the file that name its reaction: each `ReactionKind`'s.
    static let fileKeys = ReactionKinds.all.map { $0.key }
    /// The reactions in words, for messages.
    static let listed = fileKeys.dropLast().joined(separator: ", ") + " or " + fileKeys.last!

    static func condition(_ text: String) -> Result<String, Problem> {
        let c = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !c.isEmpty else { return .failure("a rule needs a condition: when: <what to look for>") }
        guard c.count <= maxConditionLength else {
            return .failure("the condition is \(c.count) characters; keep it under \(maxConditionLength) (a few words work best)")
        }
        guard !c.contains(where: \.isNewline) else { return .failure("a condition is one line") }
        if let problem = controlCharacter(in: c, what: "the condition") { return .failure(problem) }
        return .success(c)
    }

    /// A control or invisible format character in `text`, in words (`PlainWords`).
    static func controlCharacter(in text: String, what: String) -> Problem? {
        PlainWords.controlCharacter(in: text, what: what).map { Problem(stringLiteral: $0) }
    }

    /// Warnings for conditions written twice (the same words, ignoring case and spaces).
    static func duplicates(_ rules: [Rule], source: String) -> [String] {
        var seen: [String: Rule] = [:]
        var warnings: [String] = []
        for rule in rules {
            // Compatibility forms fold together (full-width letters, ligatures, non-breaking spaces).
            let key = rule.condition.precomposedStringWithCompatibilityMapping.lowercased().split(whereSeparator: \.isWhitespace)
                .joined(separator: " ")
            if let first = seen[key] {
                let place = rule.line > 0 ? "\(source):\(rule.line):\(rule.column)" : source
                let firstPlace = first.line > 0 ? "line \(first.line)" : "an earlier rule"
                warnings.append("\(place): \"\(rule.condition)\" is already a condition (\(firstPlace)); both rules share one answer")
            } else {
                seen[key] = rule
            }
        }
        return warnings
    }
}

import Foundation

/// A rule's `describe:` (or `--describe` for every rule): after a fire, one sentence about the fired
/// frame, asked of the model on the frame as it was encoded for the yes/no question.
public enum Describe: Sendable, Equatable {
    /// The question the README gives, with the rule's words as context.
    case standard
    /// The rule's own question (`describe: "Is anyone carrying something? Say what."`).
    case question(String)

    /// The question asked about a fire of `condition`.
    public func question(for condition: String) -> String {
        switch self {
        case .standard: return Self.standardQuestion(condition)
        case .question(let text): return text
        }
    }

    /// `In one short sentence, say what is happening in this picture. It was picked because it shows <condition>.`
    public static func standardQuestion(_ condition: String) -> String {
        "In one short sentence, say what is happening in this picture. It was picked because it shows \(condition)."
    }

    /// The most characters a rule's own question has.
    public static let maxLength = 300

    /// `describe: true|false|"question"` as written in the file; nil (with no problem) for false.
    static func parse(_ text: String) -> Result<Describe?, Problem> {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch t.lowercased() {
        case "true", "yes", "on": return .success(.standard)
        case "false", "no", "off": return .success(nil)
        default: break
        }
        guard !t.isEmpty else { return .failure("describe: is true, false or a question of your own") }
        guard t.count <= maxLength else { return .failure("describe: is a question of at most \(maxLength) characters") }
        guard !t.contains(where: \.isNewline) else { return .failure("describe: is a question on one line") }
        if let problem = ReactionWords.controlCharacter(in: t, what: "describe:") { return .failure(problem) }
        return .success(.question(t))
    }
}

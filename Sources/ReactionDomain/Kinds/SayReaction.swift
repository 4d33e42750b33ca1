import Foundation
import LookCore

/// `say: Hello` (inline: `say:Hello`): a line spoken by espeak-ng at the fire. A line with
/// `{description}` in it is spoken once the fire's description is in (`SpokenLine`).
public struct SayReaction: ReactionKind {
    public static let key = "say"
    public static var inlineHelp: String { "say:<line>" }
    public static var inlineExample: String { "say:Hello" }
    public static let maxLength = 500

    public var line: String

    public init(line: String) { self.line = line }

    public var name: String { "say" }
    public var inlineForm: String { "say:\(line)" }
    public var recordFields: [(String, JSON)] { [("line", .string(line))] }
    public var failures: String? { "speech" }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> SayReaction {
        let line = try value.word(key).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !line.isEmpty else { throw value.problem("say needs a line to speak") }
        if let problem = PlainWords.controlCharacter(in: line, what: "the spoken line") { throw value.problem(problem) }
        guard line.count <= maxLength else { throw value.problem("the spoken line is over \(maxLength) characters") }
        return SayReaction(line: line)
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> SayReaction { try read(.inline(text)) }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        if line.contains(SpokenLine.placeholder) { return ReactionResult(performed: true, shown: "say", note: "spoken after the description") }
        services.notice("say: \(line)")
        return services.say(line, fire: fire)
    }

    public func described(_ fire: FireContext, _ services: any ReactionServices) {
        guard line.contains(SpokenLine.placeholder) else { return }
        let spoken = SpokenLine.fill(line, description: fire.description, condition: fire.condition)
        services.notice("say: \(spoken)")
        _ = services.say(spoken, fire: fire)
    }
}

/// A `say:` line with the fire's description in it: `say: "{description}"`, or a line with
/// `{description}` inside; without a description (none asked, none came) the rule's words stand in.
public enum SpokenLine {
    public static let placeholder = "{description}"

    public static func fill(_ line: String, description: String?, condition: String) -> String {
        line.replacingOccurrences(of: placeholder, with: description ?? condition)
    }
}

import Foundation
import LookCore
import ReactionDomain

/// The inline form of rules, as the seed's `-rules` writes them:
/// `a chessboard=chime|a lighthouse=say:There is the lighthouse|stones=effect:ripple/water`.
/// Reactions: each kind's inline form (`ReactionKinds.all`): chime, glass, bell, say:<line>,
/// timer:<minutes>, count, log, effect:ripple|zoom|spotlight with an optional /water|horn|bells|chime,
/// run:<program> <arguments> (split at spaces), post:<URL>, notify:<URL>; `+describe` after any of
/// them asks for a sentence about each fire.
public enum InlineRules {
    public static let source = "\(SettingName.rules)"

    public static func parse(_ text: String) throws(RulesError) -> RuleSet {
        let parts = text.split(separator: "|", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.contains(where: { !$0.isEmpty }) else { throw .noRules(source) }
        var rules: [Rule] = []
        var column = 1
        for (index, part) in parts.enumerated() {
            defer { column += part.count + 1 }
            if part.isEmpty { continue }
            func fail(_ problem: String) -> RulesError {
                RulesError(source: source, problem: "rule \(index + 1) (\"\(part.withVisibleControls())\"): \(problem)")
            }
            guard let eq = part.firstIndex(of: "=") else {
                throw fail("write condition=reaction, for example \"a chessboard=chime\"")
            }
            let condition: String
            switch ReactionWords.condition(String(part[..<eq])) {
            case .success(let c): condition = c
            case .failure(let p): throw fail(p.text)
            }
            var word = part[part.index(after: eq)...].trimmingCharacters(in: .whitespaces)
            // `a parcel=count+describe`: a sentence about each fire, beside the reaction.
            let describe = word.lowercased().hasSuffix("+describe")
            if describe { word = String(word.dropLast("+describe".count)).trimmingCharacters(in: .whitespaces) }
            let (name, value): (String, String?) = {
                guard let colon = word.firstIndex(of: ":") else { return (word.lowercased(), nil) }
                return (word[..<colon].lowercased(), String(word[word.index(after: colon)...]))
            }()
            let reaction: Reaction
            if let value {
                guard let kind = ReactionKinds.named(name) else { throw fail(unknown(word)) }
                do throws(ReactionProblem) { reaction = Reaction(try kind.inline(value)) } catch { throw fail(error.text) }
            } else if let bare = ReactionKinds.bare(name) {
                reaction = Reaction(bare)
            } else if let kind = ReactionKinds.named(name) {
                throw fail("\(name) needs a value after a colon, like \(kind.inlineExample)")
            } else if name == "haptic" {
                throw fail("haptic: there is no buzz on Linux; use a sound or say:")
            } else {
                throw fail(unknown(word))
            }
            var settings = RuleSettings()
            if describe { settings.describe = .standard }
            rules.append(Rule(condition: condition, reaction: reaction, line: 0, column: column, settings: settings))
        }
        return RuleSet(rules: rules, warnings: ReactionWords.duplicates(rules, source: source))
    }

    private static func unknown(_ word: String) -> String {
        let forms = ReactionKinds.all.map { $0.inlineHelp }
        return "unknown reaction \"\(word)\"; use " + forms.dropLast().joined(separator: ", ") + " or " + forms.last!
    }
}

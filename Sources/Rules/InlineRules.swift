import Foundation
import LookCore

/// The inline form of rules, as the seed's `-rules` writes them:
/// `a chessboard=chime|a lighthouse=say:There is the lighthouse|stones=effect:ripple/water`.
/// Reactions: chime, glass, bell, say:<line>, timer:<minutes>, count, log,
/// effect:ripple|zoom|spotlight with an optional /water|horn|bells|chime, run:<program> <arguments>
/// (split at spaces), post:<URL>; `+describe` after any of them asks for a sentence about each fire.
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
            func need<T>(_ r: Result<T, Problem>) throws(RulesError) -> T {
                switch r {
                case .success(let v): return v
                case .failure(let p): throw fail(p.text)
                }
            }
            let reaction: Reaction
            switch (name, value) {
            case ("say", let line?): reaction = .say(try need(ReactionWords.spoken(line)))
            case ("timer", let minutes?): reaction = .timer(minutes: try need(ReactionWords.timer(minutes)))
            case ("count", nil): reaction = .count
            case ("log", nil): reaction = .log
            case ("effect", let spec?):
                let pieces = spec.split(separator: "/", maxSplits: 1).map(String.init)
                let effect = try need(ReactionWords.effect(pieces.first ?? ""))
                let sound = pieces.count > 1 ? try need(ReactionWords.effectSound(pieces[1])) : effect.ownSound
                reaction = .effect(effect, sound: sound)
            case ("run", let words?): reaction = .run(try need(ReactionWords.command(words.split(whereSeparator: \.isWhitespace).map(String.init))))
            case ("post", let url?): reaction = .post(try need(ReactionWords.post(url: url)))
            case (let key, let text?) where ReactionKinds.named(key) != nil:
                do throws(ReactionProblem) { reaction = .kind(try ReactionKinds.named(key)!.inline(text)) } catch { throw fail(error.text) }
            case (let key, nil) where ReactionKinds.named(key) != nil:
                throw fail("\(key) needs a value after a colon, like \(key):…")
            case ("haptic", nil):
                throw fail("haptic: there is no buzz on Linux; use a sound or say:")
            case (_, nil) where Sound(rawValue: name) != nil:
                reaction = .sound(Sound(rawValue: name)!)
            case ("say", nil), ("timer", nil), ("effect", nil), ("run", nil), ("post", nil):
                let example = [
                    "say": "say:Hello", "timer": "timer:5", "effect": "effect:ripple", "run": "run:notify-send Door", "post": "post:http://host/hook",
                ]
                throw fail("\(name) needs a value after a colon, like \(example[name]!)")
            default:
                throw fail(
                    "unknown reaction \"\(word)\"; use chime, glass, bell, say:<line>, timer:<minutes>, count, log, effect:<ripple|zoom|spotlight>, run:<program>, post:<URL>"
                        + ReactionKinds.all.map { " or \($0.key):…" }.joined()
                )
            }
            var settings = RuleSettings()
            if describe { settings.describe = .standard }
            rules.append(Rule(condition: condition, reaction: reaction, line: 0, column: column, settings: settings))
        }
        return RuleSet(rules: rules, warnings: ReactionWords.duplicates(rules, source: source))
    }
}

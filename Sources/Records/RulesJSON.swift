import LookCore
import Rules

/// The rules as every record lists them: number, condition, reaction, kind, the inline form and
/// the rule's own settings in words (empty for the defaults).
public enum RulesJSON {
    public static func list(_ rules: [Rule]) -> JSON {
        .array(
            rules.enumerated().map { i, r in
                .object([
                    ("rule", .int(i + 1)), ("condition", .string(r.condition)), ("reaction", .string(r.reaction.name)),
                    ("kind", .string(r.reaction.kind)), ("inline", .string(r.reaction.shownForm)),
                    ("settings", .string(r.settings.summary)),
                ])
            })
    }
}

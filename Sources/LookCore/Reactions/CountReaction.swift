/// `count: true` (inline: `count`): counts the fires; the row shows `×3`, kept across restarts.
public struct CountReaction: ReactionKind {
    public static let key = "count"
    public static var inlineHelp: String { "count" }

    public init() {}

    public var name: String { "count" }
    public var inlineForm: String { "count" }
    public var failures: String? { nil }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> CountReaction {
        try value.onlyTrue(key)
        return CountReaction()
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> CountReaction {
        throw ReactionProblem("count takes no value: write count")
    }

    public static func bare(_ word: String) -> CountReaction? { word == key ? CountReaction() : nil }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        ReactionResult(performed: true, shown: "×\(services.increment(fire.condition))")
    }

    public func shown(_ condition: String, _ services: any ReactionServices) -> String { "×\(services.count(for: condition))" }
}

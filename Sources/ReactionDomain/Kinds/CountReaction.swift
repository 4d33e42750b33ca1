import LookCore

/// `count: true` (inline: `count`): counts the fires; the row shows `×3`, kept across restarts.
public struct CountReaction: SwitchReaction {
    public static let key = "count"

    public init() {}

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        ReactionResult(performed: true, shown: "×\(services.increment(fire.condition))")
    }

    public func shown(_ condition: String, _ services: any ReactionServices) -> String { "×\(services.count(for: condition))" }
}

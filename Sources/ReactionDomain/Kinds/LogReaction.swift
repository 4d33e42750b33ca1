import LookCore

/// `log: true` (inline: `log`): a timestamped line; the page shows the latest three, and the fire's
/// own journal line carries it (one line a fire, as the service promises).
public struct LogReaction: SwitchReaction {
    public static let key = "log"

    public init() {}

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        ReactionResult(performed: true, shown: "log", note: services.logLine(fire.condition, at: fire.time))
    }
}

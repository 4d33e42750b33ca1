/// `log: true` (inline: `log`): a timestamped line; the page shows the latest three, and the fire's
/// own journal line carries it (one line a fire, as the service promises).
public struct LogReaction: ReactionKind {
    public static let key = "log"
    public static var inlineHelp: String { "log" }

    public init() {}

    public var name: String { "log" }
    public var inlineForm: String { "log" }
    public var failures: String? { nil }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> LogReaction {
        try value.onlyTrue(key)
        return LogReaction()
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> LogReaction {
        throw ReactionProblem("log takes no value: write log")
    }

    public static func bare(_ word: String) -> LogReaction? { word == key ? LogReaction() : nil }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        ReactionResult(performed: true, shown: "log", note: services.logLine(fire.condition, at: fire.time))
    }
}

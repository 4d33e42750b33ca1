import LookCore

/// Every reaction kind, each one type in one file (Sources/ReactionDomain/Kinds/), in the order the
/// rules file's keys, `lookd check` and the messages name them. A new kind is one file there and
/// one line here.
public enum ReactionKinds {
    public static let all: [any ReactionKind.Type] = [
        SoundReaction.self, SayReaction.self, TimerReaction.self, CountReaction.self, LogReaction.self, EffectReaction.self,
        RunReaction.self, PostReaction.self, NotifyReaction.self,
    ]

    /// Every kind's inline form, for help and messages: `chime, glass, …; say:<line>; …`.
    public static var inlineForms: String { all.map { $0.inlineHelp }.joined(separator: "; ") }

    /// The kind whose key is `key`.
    public static func named(_ key: String) -> (any ReactionKind.Type)? { all.first { $0.key == key } }

    /// The kind a bare inline word names (`chime`, `count`), with its value.
    public static func bare(_ word: String) -> (any ReactionKind)? {
        for kind in all { if let value = kind.bare(word) { return value } }
        return nil
    }
}

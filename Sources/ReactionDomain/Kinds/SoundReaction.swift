import LookCore

/// `sound: chime` (inline: `chime`): a desktop sound at the fire.
public struct SoundReaction: ReactionKind {
    public static let key = "sound"
    public static var inlineHelp: String { Sound.allCases.map(\.rawValue).joined(separator: ", ") }

    public var sound: Sound

    public init(sound: Sound) { self.sound = sound }

    public var name: String { sound.rawValue }
    public var inlineForm: String { sound.rawValue }
    public var playedSound: String? { sound.rawValue }
    public var recordFields: [(String, JSON)] { [("sound_chosen", .string(sound.rawValue))] }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> SoundReaction {
        let word = try value.word(key)
        if let sound = Sound(rawValue: word.lowercased()) { return SoundReaction(sound: sound) }
        if EffectSound(rawValue: word.lowercased()) != nil {
            throw value.problem("\"\(word)\" is an effect's sound; a sound rule plays chime, glass or bell")
        }
        throw value.problem("unknown sound \"\(word)\"; use chime, glass or bell")
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> SoundReaction { try read(.inline(text)) }

    public static func bare(_ word: String) -> SoundReaction? { Sound(rawValue: word).map(SoundReaction.init) }

    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        services.play(sound.rawValue, fire: fire, shown: sound.rawValue)
    }
}

/// The desktop sounds a `sound:` rule plays.
public enum Sound: String, Sendable, CaseIterable {
    case chime, glass, bell
}

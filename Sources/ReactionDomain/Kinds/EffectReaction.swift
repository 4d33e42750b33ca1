import LookCore

/// `effect: ripple` with an optional `sound: horn` (inline: `effect:ripple/horn`): the fired frame is
/// held and edited at the thing's place, which the model is asked for (`--place box`), with the
/// edit's sound (its own unless chosen). The watch's fire stage draws the edit.
public struct EffectReaction: ReactionKind {
    public static let key = "effect"
    public static var inlineHelp: String { "effect:<\(Effect.allCases.map(\.rawValue).joined(separator: "|"))>" }
    public static var inlineExample: String { "effect:ripple" }
    /// `sound:` beside `effect:` chooses the edit's sound.
    public static var companions: [String] { [SoundReaction.key] }

    public var effect: Effect
    public var sound: EffectSound

    public init(effect: Effect, sound: EffectSound) {
        self.effect = effect
        self.sound = sound
    }

    public var name: String { "\(effect.rawValue) · \(sound.rawValue)" }
    public var inlineForm: String { sound == effect.ownSound ? "effect:\(effect.rawValue)" : "effect:\(effect.rawValue)/\(sound.rawValue)" }
    public var checkedForm: String { "effect:\(effect.rawValue)/\(sound.rawValue)" + (sound == effect.ownSound ? " (its own sound)" : "") }
    public var wantsPlace: Bool { true }
    public var playedSound: String? { sound.rawValue }
    public var recordFields: [(String, JSON)] { [("effect", .string(effect.rawValue)), ("sound_chosen", .string(sound.rawValue))] }
    public var failures: String? { "sound" }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> EffectReaction { try read(value, beside: [:]) }

    public static func read(_ value: ReactionValue, beside: [String: ReactionValue]) throws(ReactionProblem) -> EffectReaction {
        let effect = try Self.effect(try value.word(key), at: value)
        guard let chosen = beside[SoundReaction.key] else { return EffectReaction(effect: effect, sound: effect.ownSound) }
        return EffectReaction(effect: effect, sound: try sound(try chosen.word(SoundReaction.key), at: chosen))
    }

    /// `ripple`, or `ripple/horn`.
    public static func inline(_ text: String) throws(ReactionProblem) -> EffectReaction {
        let pieces = text.split(separator: "/", maxSplits: 1).map(String.init)
        let effect = try Self.effect(pieces.first ?? "", at: nil)
        return EffectReaction(effect: effect, sound: pieces.count > 1 ? try sound(pieces[1], at: nil) : effect.ownSound)
    }

    static func effect(_ word: String, at value: ReactionValue?) throws(ReactionProblem) -> Effect {
        if let e = Effect(rawValue: word.lowercased()) { return e }
        throw ReactionProblem("unknown effect \"\(word)\"; use ripple, zoom or spotlight", at: value)
    }

    static func sound(_ word: String, at value: ReactionValue?) throws(ReactionProblem) -> EffectSound {
        if let s = EffectSound(rawValue: word.lowercased()) { return s }
        throw ReactionProblem("unknown effect sound \"\(word)\"; use water, horn, bells or chime", at: value)
    }

    /// Its sound; the edit itself is drawn by the watch, which holds the frame.
    public func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult {
        services.play(sound.rawValue, fire: fire, shown: name)
    }
}

/// The held-frame edits.
public enum Effect: String, Sendable, CaseIterable {
    case ripple, zoom, spotlight

    /// The sound each edit plays unless the rule picks another.
    public var ownSound: EffectSound {
        switch self {
        case .ripple: return .water
        case .zoom: return .horn
        case .spotlight: return .bells
        }
    }
}

/// The sounds an effect can play.
public enum EffectSound: String, Sendable, CaseIterable {
    case water, horn, bells, chime
}

import LookCore

/// What a rule does when it fires: one reaction kind's value (`ReactionKinds.all`). Each kind is one
/// type in one file in Sources/ReactionDomain/Kinds/; this wraps it so rules, records and the reactor
/// hold any of them alike.
public struct Reaction: Sendable, Equatable, CustomStringConvertible {
    /// The kind's own value (`SoundReaction`, `PostReaction`, …).
    public let base: any ReactionKind

    /// `show_url: true` on its rule: its outbound URLs are shown whole (passwords still masked).
    public var showsURL = false

    public init(_ base: any ReactionKind) { self.base = base }

    public static func == (a: Reaction, b: Reaction) -> Bool { a.base.isSame(as: b.base) }

    /// The kind's value, when it is a `K`.
    public func `as`<K: ReactionKind>(_: K.Type) -> K? { base as? K }

    /// The reaction's name in records and status (`chime`, `say`, `timer`, `count`, `log`, `ripple · water`).
    public var name: String { base.name }
    /// The inline form as records and screens show it: a post's URL with its secrets masked.
    public var shownForm: String { unmasked(base.shownForm) }
    /// Everything the rule says about its reaction, for `lookd check` (secrets masked).
    public var checkedForm: String { unmasked(base.checkedForm) }
    /// Its own fields in a fire's record.
    public var recordFields: [(String, JSON)] {
        base.recordFields.map { key, value in
            if case .string(let s) = value { return (key, .string(unmasked(s))) }
            return (key, value)
        }
    }

    /// `text` with the kind's outbound URLs shown whole when the rule asks (`show_url: true`).
    private func unmasked(_ text: String) -> String {
        guard showsURL else { return text }
        return base.outboundURLs.reduce(text) { $0.replacingOccurrences(of: Secrets.outbound(url: $1), with: Secrets.masked(url: $1)) }
    }
    /// The rule written back in the inline form's words (`chime`, `say:Hello`, `effect:zoom/bells`).
    public var inlineForm: String { base.inlineForm }
    /// The kind, without its detail: `sound`, `say`, `timer`, `count`, `log`, `effect`, `run`, `post`, `notify`.
    public var kind: String { type(of: base).key }
    /// Whether it counts (`count: true`).
    public var isCount: Bool { base is CountReaction }
    /// Whether it cannot go without the fire's snapshot (a watch without `--snapshots` refuses it).
    public var needsSnapshot: Bool { base.needsSnapshot }
    /// Whether it goes once the fire's description is in (`wait: description`).
    public var waitsForDescription: Bool { base.waitsForDescription }
    /// Whether it goes once the fire's clip is written (`wait: clip`).
    public var waitsForClip: Bool { base.waitsForClip }
    public var description: String { shownForm }

    public static func sound(_ sound: Sound) -> Reaction { Reaction(SoundReaction(sound: sound)) }
    public static func say(_ line: String) -> Reaction { Reaction(SayReaction(line: line)) }
    public static func timer(minutes: Double) -> Reaction { Reaction(TimerReaction(minutes: minutes)) }
    public static let count = Reaction(CountReaction())
    public static let log = Reaction(LogReaction())
    public static func effect(_ effect: Effect, sound: EffectSound) -> Reaction { Reaction(EffectReaction(effect: effect, sound: sound)) }
    public static func run(_ command: Command) -> Reaction { Reaction(RunReaction(command: command)) }
    public static func post(_ post: Post) -> Reaction { Reaction(PostReaction(post: post)) }
}

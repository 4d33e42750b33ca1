import Foundation
import LookCore

/// A kind of reaction, written as one type in one file (Sources/ReactionDomain/Kinds/) and listed once
/// in `ReactionKinds.all`: it reads its rule's key and its inline form, says how `lookd check` and
/// the records show it, performs itself through the reactor's `ReactionServices`, and says what its
/// row and its metrics show.
public protocol ReactionKind: Sendable, Equatable {
    /// Its key in a rule of the rules file, and its word in the inline form (`notify`); `kind` in records.
    static var key: String { get }
    /// How messages name its inline form (`say:<line>`; the sounds' bare words, `chime, glass, bell`).
    static var inlineHelp: String { get }
    /// An inline rule written with its value, for the message when the value is missing (`say:Hello`).
    static var inlineExample: String { get }
    /// Other keys of the rule that belong to it (an effect's `sound:`), read with it.
    static var companions: [String] { get }
    /// Reads the key's value in the rules file (a word, a list or a map).
    static func read(_ value: ReactionValue) throws(ReactionProblem) -> Self
    /// Reads the key's value with its companions' values (by key), when any are written.
    static func read(_ value: ReactionValue, beside: [String: ReactionValue]) throws(ReactionProblem) -> Self
    /// Reads the inline form's text after `key:` (`notify:https://ntfy.sh/door`).
    static func inline(_ text: String) throws(ReactionProblem) -> Self
    /// The kind a bare inline word names (`chime`, `count`), nil when the word is not its.
    static func bare(_ word: String) -> Self?

    /// Its name in records and on the rule's row.
    var name: String { get }
    /// The rule written back in the inline form's words (secrets as written).
    var inlineForm: String { get }
    /// As records and screens show it: secrets masked.
    var shownForm: String { get }
    /// Everything the rule says about it, for `lookd check` (secrets masked).
    var checkedForm: String { get }
    /// Whether it goes once the fire's description is in (`wait: description`).
    var waitsForDescription: Bool { get }
    /// Whether it goes once the fire's clip is written (`wait: clip`).
    var waitsForClip: Bool { get }
    /// Whether it needs the fire's snapshot (`--snapshots`): a watch without snapshots refuses it.
    var needsSnapshot: Bool { get }
    /// Whether the fire asks the model where the thing is (`--place box`: an effect's edit).
    var wantsPlace: Bool { get }
    /// The sound it plays at the fire, for the run record's tallies.
    var playedSound: String? { get }
    /// Its own fields in a fire's record.
    var recordFields: [(String, JSON)] { get }
    /// The URLs it sends to (a post's, a notification's, a command's URL arguments): shown as
    /// scheme, host and port only (`Secrets.outbound`), unless its rule says `show_url: true`.
    var outboundURLs: [String] { get }
    /// What its failures count under in `/metrics` (`sound`, `post`); nil: it cannot fail.
    var failures: String? { get }
    /// Performs it for `fire`, at once; what finishes later is reported through `services`.
    func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult
    /// What the rule's row shows now (`×3`, `3:59 left`; its name unless it keeps a state).
    func shown(_ condition: String, _ services: any ReactionServices) -> String
    /// The fire's description came (in `fire.description`, or why not in `fire.descriptionProblem`):
    /// what the kind does with it beyond what waited for it (a spoken line with `{description}`).
    func described(_ fire: FireContext, _ services: any ReactionServices)
}

extension ReactionKind {
    public static var inlineHelp: String { "\(key):…" }
    public static var inlineExample: String { "\(key):…" }
    public static var companions: [String] { [] }
    public static func read(_ value: ReactionValue, beside: [String: ReactionValue]) throws(ReactionProblem) -> Self { try read(value) }
    public static func bare(_ word: String) -> Self? { nil }
    public var shownForm: String { inlineForm }
    public var checkedForm: String { shownForm }
    public var waitsForDescription: Bool { false }
    public var waitsForClip: Bool { false }
    public var needsSnapshot: Bool { false }
    public var wantsPlace: Bool { false }
    public var playedSound: String? { nil }
    public var recordFields: [(String, JSON)] { [] }
    public var outboundURLs: [String] { [] }
    public var failures: String? { Self.key }
    public func shown(_ condition: String, _ services: any ReactionServices) -> String { name }
    public func described(_ fire: FireContext, _ services: any ReactionServices) {}

    /// Whether `other` is the same reaction.
    func isSame(as other: any ReactionKind) -> Bool { (other as? Self) == self }
}

/// A kind that is on or absent and takes no value (`count: true`, `log: true`; inline: its bare
/// word): its key is its name, its inline form and its help, and it cannot fail.
public protocol SwitchReaction: ReactionKind {
    init()
}

extension SwitchReaction {
    public static var inlineHelp: String { key }
    public var name: String { Self.key }
    public var inlineForm: String { Self.key }
    public var failures: String? { nil }

    public static func read(_ value: ReactionValue) throws(ReactionProblem) -> Self {
        try value.onlyTrue(key)
        return Self()
    }

    public static func inline(_ text: String) throws(ReactionProblem) -> Self {
        throw ReactionProblem("\(key) takes no value: write \(key)")
    }

    public static func bare(_ word: String) -> Self? { word == key ? Self() : nil }
}

/// What the reactor offers a reaction kind: sounds and speech, countdowns and counts, the log,
/// commands and requests (bounded, their outcomes reported), and the journal.
public protocol ReactionServices: AnyObject, Sendable {
    /// Plays the sound named `sound` (a clip of the build); `shown` is what the row shows.
    func play(_ sound: String, fire: FireContext, shown: String) -> ReactionResult
    /// Speaks `line`.
    func say(_ line: String, fire: FireContext) -> ReactionResult
    /// Starts (or restarts: true) `condition`'s countdown of `minutes`.
    func startTimer(_ condition: String, minutes: Double) -> Bool
    /// Seconds left on `condition`'s countdown, nil when none runs.
    func timeLeft(_ condition: String) -> Double?
    /// Counts one more for `condition`; the count now.
    func increment(_ condition: String) -> Int
    /// How many times `condition` has counted.
    func count(for condition: String) -> Int
    /// Keeps a log line for `condition` at `time` (the page shows the latest); the line.
    func logLine(_ condition: String, at time: Date) -> String
    /// Starts `command` for `fire` on the commands' bounded workers; its `command` report follows.
    func start(_ command: Command, fire: FireContext) -> ReactionResult
    /// Sends `post` for `fire` on the posts' bounded workers; its `post` report follows.
    func send(_ post: Post, fire: FireContext, shown: String) -> ReactionResult
    /// A line to the journal.
    func notice(_ line: String)
}

/// A reaction's value as the rules file writes it: a word, a list or a map, each with its place.
public indirect enum ReactionValue: Sendable {
    case word(String, line: Int, column: Int)
    case list([ReactionValue], line: Int, column: Int)
    case map([(key: String, value: ReactionValue)], line: Int, column: Int)

    /// The inline form's text, as a word with no place.
    public static func inline(_ text: String) -> ReactionValue { .word(text, line: 0, column: 0) }

    public var text: String? {
        if case .word(let text, _, _) = self { return text }
        return nil
    }

    public var place: (line: Int, column: Int) {
        switch self {
        case .word(_, let line, let column), .list(_, let line, let column), .map(_, let line, let column): (line, column)
        }
    }

    /// A problem at this value's place.
    public func problem(_ text: String) -> ReactionProblem { ReactionProblem(text, at: self) }

    /// What this value is, in words, for messages.
    public var kind: String {
        switch self {
        case .word: "a value"
        case .list: "a list"
        case .map: "a set of keys"
        }
    }

    /// The value of `key` as one word, or a problem saying it takes one.
    public func word(_ key: String) throws(ReactionProblem) -> String {
        guard let text else { throw problem("\(key): takes a single value, not \(kind)") }
        return text
    }

    /// `true`, the only value of a reaction that is on or absent (`count: true`).
    public func onlyTrue(_ key: String) throws(ReactionProblem) {
        let text = try word(key).lowercased()
        guard ["true", "yes", "on"].contains(text) else { throw problem("\(key): true is the only setting (\(key): \(text) would do nothing)") }
    }
}

/// Why a reaction's value cannot be read, and where (nil: at its key).
public struct ReactionProblem: Error, Sendable {
    public let text: String
    public let line: Int?
    public let column: Int?

    public init(_ text: String, line: Int?, column: Int?) {
        (self.text, self.line, self.column) = (text, line, column)
    }

    public init(_ text: String, at value: ReactionValue? = nil) {
        self.text = text
        let place = value?.place
        (line, column) = place.map { $0.line > 0 ? ($0.line, $0.column) : (nil, nil) } ?? (nil, nil)
    }
}

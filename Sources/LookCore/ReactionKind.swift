import Foundation

/// A kind of reaction written as one type in one file (Sources/LookCore/Reactions/) and listed once in
/// `ReactionKinds.all`: it reads its rule's key and its inline form, says how `lookd check` and the
/// records show it, performs itself through the reactor's `ReactionServices`, and says what its
/// row and its metrics show. (The eight kinds from before are still `Reaction`'s own cases.)
public protocol ReactionKind: Sendable, Equatable {
    /// Its key in a rule of the rules file, and its word in the inline form (`notify`); `kind` in records.
    static var key: String { get }
    /// Reads the key's value in the rules file (a word, a list or a map).
    static func read(_ value: ReactionValue) throws(ReactionProblem) -> Self
    /// Reads the inline form's text after `key:` (`notify:https://ntfy.sh/door`).
    static func inline(_ text: String) throws(ReactionProblem) -> Self

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
    /// Whether it needs the fire's snapshot (`--snapshots`): a watch without snapshots refuses it.
    var needsSnapshot: Bool { get }
    /// Its own fields in a fire's record.
    var recordFields: [(String, JSON)] { get }
    /// What its failures count under in `/metrics` (`post`, `notify`); nil: it cannot fail.
    var failures: String? { get }
    /// Performs it for `fire`, at once; what finishes later is reported through `services`.
    func perform(_ fire: FireContext, _ services: any ReactionServices) -> ReactionResult
}

extension ReactionKind {
    public var shownForm: String { inlineForm }
    public var checkedForm: String { shownForm }
    public var waitsForDescription: Bool { false }
    public var needsSnapshot: Bool { false }
    public var recordFields: [(String, JSON)] { [] }
    public var failures: String? { Self.key }

    /// Whether `other` is the same reaction.
    func isSame(as other: any ReactionKind) -> Bool { (other as? Self) == self }
}

/// What the reactor offers a reaction kind: sending a request (`Post`, bounded, tried again, its
/// outcome reported as a `post` report), starting a command, and the journal.
public protocol ReactionServices: AnyObject, Sendable {
    func send(_ post: Post, fire: FireContext, shown: String) -> ReactionResult
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
}

/// Why a reaction's value cannot be read, and where (nil: at its key).
public struct ReactionProblem: Error, Sendable {
    public let text: String
    public let line: Int?
    public let column: Int?

    public init(_ text: String, at value: ReactionValue? = nil) {
        self.text = text
        let place = value?.place
        (line, column) = place.map { $0.line > 0 ? ($0.line, $0.column) : (nil, nil) } ?? (nil, nil)
    }
}

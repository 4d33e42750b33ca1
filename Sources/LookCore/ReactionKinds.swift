/// Every reaction kind written as one type (`ReactionKind`), in the order `lookd check` and the
/// messages name them. A new kind is one file in Sources/LookCore/Reactions/ and one line here.
public enum ReactionKinds {
    public static let all: [any ReactionKind.Type] = [NotifyReaction.self]

    /// The kind whose key is `key`.
    public static func named(_ key: String) -> (any ReactionKind.Type)? { all.first { $0.key == key } }
}

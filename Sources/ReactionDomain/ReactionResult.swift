import LookCore

/// What became of one reaction.
public struct ReactionResult: Sendable, Equatable {
    /// Whether lookd did (or started) what the reaction says; false when it cannot or it failed.
    public var performed: Bool
    /// What the rule's row shows now: `×3`, `log`, `chime`, `say`, `4:00`, `ripple · water`.
    public var shown: String
    /// Why it was not performed, or a detail worth keeping.
    public var note: String?
    /// Not performed because the user turned it off (`--no-sound`): neither done nor a failure.
    public var turnedOff: Bool

    public init(performed: Bool, shown: String, note: String? = nil, turnedOff: Bool = false) {
        self.performed = performed
        self.shown = shown
        self.note = note
        self.turnedOff = turnedOff
    }

    /// What a record says of it: what the row shows, `turned off (--no-sound)`, or why it was not performed.
    public var outcome: String {
        performed ? shown : turnedOff ? "turned off (\(note ?? "\(SettingName.noSound)"))" : "recorded, not performed: \(note ?? "")"
    }
}

/// What became of one reaction.
public struct ReactionResult: Sendable, Equatable {
    /// Whether lookd did (or started) what the reaction says; false when it cannot or it failed.
    public var performed: Bool
    /// What the rule's row shows now: `×3`, `log`, `chime`, `say`, `4:00`, `ripple · water`.
    public var shown: String
    /// Why it was not performed, or a detail worth keeping.
    public var note: String?

    public init(performed: Bool, shown: String, note: String? = nil) {
        self.performed = performed
        self.shown = shown
        self.note = note
    }
}

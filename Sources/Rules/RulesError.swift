/// The Rules module: the rules file and the inline `--rules` form, the numbered prompt, answer
/// parsing and the firing state machine. It is filled by the watch issue; for now it holds the
/// module's error type, whose descriptions are the sentences a user reads.
public enum RulesError: Error, CustomStringConvertible, Equatable {
    /// No rule at all (the seed's sentence).
    case noRules

    public var description: String {
        switch self {
        case .noRules: return "Add a rule first."
        }
    }
}

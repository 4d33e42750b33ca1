extension RuleSet {
    /// Each rule as lookd understood it (`lookd check`): its number, condition, reaction in the inline
    /// form's words with every option, its own settings and its line; then the disabled ones and
    /// the file's gate masks.
    public var lines: [String] {
        let active = rules.enumerated().map { i, rule in
            let place = rule.line > 0 ? "  (line \(rule.line))" : ""
            let settings = rule.settings.isDefault ? "" : "  [\(rule.settings.summary)]"
            return "  \(i + 1). \(rule.condition) → \(rule.reaction.checkedForm)\(settings)\(place)"
        }
        let masks = gateMasks.isEmpty ? [] : ["  gate: the change gate ignores " + gateMasks.map { "[\($0.words)]" }.joined(separator: ", ")]
        return active + disabled.map { "  (disabled, line \($0.line)) \($0.condition) → \($0.reaction.checkedForm)" } + masks
    }
}

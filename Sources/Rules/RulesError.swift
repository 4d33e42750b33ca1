import LookCore

/// What is wrong with a set of rules. Each description is the sentence a user reads, with the place
/// (`rules.yaml:4:7:`) when there is one.
public struct RulesError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The file, or `--rules` for the inline form.
    public var source: String
    /// 1-based; 0 when the problem has no single place.
    public var line: Int
    public var column: Int
    public var problem: String

    public init(source: String, line: Int = 0, column: Int = 0, problem: String) {
        self.source = source
        self.line = line
        self.column = column
        self.problem = problem
    }

    /// No rule at all: the seed's sentence.
    public static func noRules(_ source: String) -> RulesError {
        RulesError(source: source, problem: "Add a rule first: \(source) has no rules.")
    }

    public var description: String {
        line > 0 ? "\(source):\(line):\(column): \(problem)" : "\(source): \(problem)"
    }
}

/// A rule set that is valid, with what is worth a warning (duplicate conditions).
public struct RuleSet: Sendable, Equatable {
    public var rules: [Rule]
    public var warnings: [String]
    /// The file's `gate: mask:` regions, which the change gate ignores.
    public var gateMasks: [GateMask]
    /// Rules written with `enabled: false`: kept in the file, not asked.
    public var disabled: [Rule]

    /// The file's `settings:`, by name, as written (lookd's declarations check them).
    public var settings: [String: GivenSetting]
    /// The file's `settings: cameras:` (empty: one camera, `--source`, or `--camera` flags).
    public var cameras: [CameraEntry]

    public init(
        rules: [Rule], warnings: [String] = [], gateMasks: [GateMask] = [], disabled: [Rule] = [], settings: [String: GivenSetting] = [:],
        cameras: [CameraEntry] = []
    ) {
        self.cameras = cameras
        self.rules = rules
        self.settings = settings
        self.warnings = warnings
        self.gateMasks = gateMasks
        self.disabled = disabled
    }
}

/// Where a setting in force came from: its default, the rules file's `settings:` (its path and
/// line), the environment (the variable), or a flag.
public enum SettingOrigin: Sendable, Equatable, CustomStringConvertible {
    case byDefault
    case file(String, line: Int)
    case environment(String)
    case flag

    public var description: String {
        switch self {
        case .byDefault: "default"
        case .file(let path, let line): "\(path):\(line)"
        case .environment(let variable): variable
        case .flag: "flag"
        }
    }
}

/// A value given for a setting (a switch's is `true` or `false`), and where it was given.
public struct GivenSetting: Sendable, Equatable {
    public var text: String
    public var origin: SettingOrigin

    public init(_ text: String, from origin: SettingOrigin) {
        self.text = text
        self.origin = origin
    }

    /// How a message names it: `--cooldown` for a flag, `rules.yaml:4: cooldown` for the file.
    public func named(_ name: SettingName) -> String { named(name.key) }

    /// How a message names the setting called `name` (a declaration's `info.name`).
    public func named(_ name: String) -> String {
        switch origin {
        case .file(let path, let line): "\(path):\(line): \(name)"
        case .environment(let variable): variable
        case .byDefault, .flag: "--\(name)"
        }
    }
}

/// Why a value cannot be a setting's: a predicate that follows the setting's name ("must be a
/// number from 0 to 3600, not \"x\"").
public struct SettingProblem: Error, Sendable, Equatable {
    public let text: String
    public init(_ text: String) { self.text = text }
}

/// What a setting needs in order to do anything: another setting given with a value it accepts
/// (any value, one of some values, or one that passes a test: a source of some kind), in words.
public struct SettingNeed: Sendable {
    public let name: String
    /// What is needed, as a message says it: `--snapshots`, `--pace frames`.
    public let words: String
    let accepts: @Sendable (String) -> Bool

    public init(_ name: SettingName, _ values: String...) {
        self.name = name.key
        words = "\(name)" + (values.isEmpty ? "" : " " + values.joined(separator: "|"))
        accepts = { values.isEmpty || values.contains($0) }
    }

    public init(_ name: SettingName, words: String, accepts: @escaping @Sendable (String) -> Bool) {
        self.name = name.key
        self.words = words
        self.accepts = accepts
    }

    /// Whether `given` holds what is needed.
    func isMet(by given: [String: GivenSetting]) -> Bool {
        guard let value = given[name] else { return false }
        return accepts(value.text)
    }
}

/// What every setting says about itself, whatever it sets: its name (the flag `--NAME` and the key
/// `NAME:` in the rules file's `settings:`), its help line and group, what it needs and whether a
/// reload may change it.
public struct SettingInfo: Sendable {
    /// A value's placeholder in the help (`S`, `FILE`); nil for a switch.
    public let placeholder: String?
    public let name: String
    public let group: String
    public let help: String
    public let needs: SettingNeed?
    public let reloadable: Bool
    /// The default in words when the value in force of a default target cannot say it (a default
    /// that depends on the source); nil: the declaration reads it from the defaults.
    public let defaultWords: String?

    public var isSwitch: Bool { placeholder == nil }
}

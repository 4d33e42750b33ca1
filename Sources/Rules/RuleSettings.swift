import Foundation
import LookCore

/// A rule's own firing settings (all optional in the rules file; the defaults are the README's firing
/// rule exactly: fire when the answer turns yes, with `--cooldown`).
///
///     - when: a person at the door
///       say: Someone is at the door
///       cooldown: 60            # its own, instead of --cooldown
///       confirm: 2 of 3         # yes on 2 of the last 3 answered frames
///       min_confidence: 0.8     # a yes the model is less sure of counts as no for firing
///       on: disappear           # appear (default), disappear, or both
///       when_active: "22:00-06:00"   # asked only then (local time; Mon-Fri 08:00-18:00; …)
///       region: [0, 0.5, 0.5, 0.5]   # asked about the bottom left quarter
///       enabled: false          # kept in the file, not asked
///       device_class: door      # what Home Assistant shows its answer as (default occupancy)
///       clip: false             # no clip of its fires (with --clips on)
///       show_url: true          # its post/notify/run URL shown whole in records and check
///       cameras: [door, yard]   # asked on these cameras only (a watch of several)
public struct RuleSettings: Sendable, Equatable {
    public enum Edge: String, Sendable, Equatable, CaseIterable {
        case appear, disappear, both
    }

    /// Seconds after a fire in which the rule does not fire again; nil: `--cooldown`.
    public var cooldown: Double?
    /// Fire when the answer is yes (no, for a disappearance) on `confirm` of the last `window`
    /// answered frames.
    public var confirm = 1
    public var window = 1
    /// A yes whose confidence is below this counts as no for firing (and is recorded as held back).
    public var minConfidence: Double?
    public var on = Edge.appear
    public var enabled = true
    /// When the rule is asked (local time); nil: always. Outside it the rule leaves the prompt and
    /// does not fire; its state starts fresh when it becomes active again.
    public var schedule: Schedule?
    /// The part of the frame the rule is asked about; nil: the whole frame.
    public var region: Region?
    /// A sentence about each fire (`describe:`); nil: none.
    public var describe: Describe?
    /// Home Assistant's binary sensor class for the rule's answer; nil: `occupancy`.
    public var deviceClass: String?
    /// Whether its fires get a clip (`clip: false` turns them off when `--clips` is on).
    public var clip = true
    /// Whether its reaction's outbound URLs are shown whole (`show_url: true`); by default they
    /// show only scheme, host and port.
    public var showURL = false
    /// The cameras it is asked on (`cameras: [door, yard]`); nil: every camera.
    public var cameras: [String]?

    /// Home Assistant's binary sensor classes (as of its 2024 releases).
    public static let deviceClasses = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat", "light", "lock",
        "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem", "running", "safety", "smoke",
        "sound", "tamper", "update", "vibration", "window",
    ]

    public init() {}

    /// True when nothing differs from the defaults.
    public var isDefault: Bool { self == RuleSettings() }

    /// The settings as `lookd check` and the status show them (`cooldown 60 s · confirm 2 of 3`), in
    /// the order they are declared.
    public var summary: String { Self.declared.compactMap { $0.shown(self) }.joined(separator: " · ") }

    fileprivate static func number(_ x: Double) -> String { x.plainText }

    /// The keys a rule in the file may have besides `when:` and its reaction, as declared.
    public static var fileKeys: [String] { declared.map(\.key) }

    /// The declaration of `key`, if it is one.
    public static func declaration(_ key: String) -> RuleSettingDeclaration? { declared.first { $0.key == key } }
}

/// One setting a rule may have in the rules file, declared once: its key, what it takes, its help, how
/// it is read (the problem in words when it is wrong), and how `lookd check` shows it when it is not
/// the default. The rules file's reading and its messages, `lookd watch --help` and `lookd check`
/// come from `RuleSettings.declared`.
public struct RuleSettingDeclaration: Sendable {
    public let key: String
    /// What it takes, in words: `seconds from 0 to 86400`.
    public let takes: String
    public let help: String
    /// Whether it takes a list (`[x, y, w, h]`) rather than one value; `oneOrList`: either.
    public let list: Bool
    public let oneOrList: Bool
    let read: @Sendable (inout RuleSettings, [String]) -> String?
    let shown: @Sendable (RuleSettings) -> String?

    init(
        _ key: String, takes: String, help: String, list: Bool = false, oneOrList: Bool = false,
        read: @escaping @Sendable (inout RuleSettings, [String]) -> String?, shown: @escaping @Sendable (RuleSettings) -> String?
    ) {
        (self.key, self.takes, self.help, self.list, self.oneOrList, self.read, self.shown) = (key, takes, help, list, oneOrList, read, shown)
    }
}

extension RuleSettings {
    /// A true-or-false setting (`true`, `yes`, `on`; `false`, `no`, `off`) of `field`, shown as
    /// `shown.words` when it is `shown.value`.
    private static func toggle(
        _ key: String, help: String, _ field: WritableKeyPath<RuleSettings, Bool> & Sendable, shown: (value: Bool, words: String)
    ) -> RuleSettingDeclaration {
        RuleSettingDeclaration(
            key, takes: "true or false", help: help,
            read: { settings, values in
                let text = values[0].trimmingCharacters(in: .whitespaces)
                let word = text.lowercased()
                guard ["true", "yes", "on", "false", "no", "off"].contains(word) else { return "\(key): is true or false, not \"\(text)\"" }
                settings[keyPath: field] = ["true", "yes", "on"].contains(word)
                return nil
            }, shown: { $0[keyPath: field] == shown.value ? shown.words : nil })
    }

    /// A number within `range` (`takes` says it in words) that sets `field`, shown as `shown` says.
    private static func bounded(
        _ key: String, takes: String, help: String, in range: ClosedRange<Double>, _ field: WritableKeyPath<RuleSettings, Double?> & Sendable,
        shown: @escaping @Sendable (Double) -> String
    ) -> RuleSettingDeclaration {
        RuleSettingDeclaration(
            key, takes: takes, help: help,
            read: { settings, values in
                guard let x = Double(values[0].trimmingCharacters(in: .whitespaces)), x.isFinite, range.contains(x) else {
                    return "\(key): is \(takes), not \"\(values[0])\""
                }
                settings[keyPath: field] = x
                return nil
            }, shown: { $0[keyPath: field].map(shown) })
    }

    /// Every per-rule setting, in the order `lookd check` shows them.
    public static let declared: [RuleSettingDeclaration] = [
        bounded(
            "cooldown", takes: "seconds from 0 to 86400", help: "its own cooldown instead of \(SettingName.cooldown)", in: 0...86400,
            \.cooldown, shown: { "cooldown \(number($0)) s" }),
        RuleSettingDeclaration(
            "confirm", takes: "N of M (1 ≤ N ≤ M ≤ 100)", help: "fire on a yes on N of the last M answered frames",
            read: { settings, values in
                let parts = values[0].lowercased().split(separator: " ").filter { !$0.isEmpty }
                guard parts.count == 3, parts[1] == "of", let n = Int(parts[0]), let m = Int(parts[2]), n >= 1, m >= n, m <= 100 else {
                    return "confirm: is \"N of M\" with 1 ≤ N ≤ M ≤ 100 (confirm: 2 of 3), not \"\(values[0])\""
                }
                (settings.confirm, settings.window) = (n, m)
                return nil
            }, shown: { $0.window > 1 || $0.confirm > 1 ? "confirm \($0.confirm) of \($0.window)" : nil }),
        bounded(
            "min_confidence", takes: "a number from 0 to 1", help: "a yes the model is less sure of counts as no for firing", in: 0...1,
            \.minConfidence, shown: { "min confidence \(number($0))" }),
        RuleSettingDeclaration(
            "on", takes: "appear, disappear or both", help: "the edge it fires on (appear: the answer turns yes)",
            read: { settings, values in
                guard let edge = Edge(rawValue: values[0].trimmingCharacters(in: .whitespaces).lowercased()) else {
                    return "on: is appear, disappear or both, not \"\(values[0])\""
                }
                settings.on = edge
                return nil
            }, shown: { $0.on == .appear ? nil : "on \($0.on.rawValue)" }),
        RuleSettingDeclaration(
            "when_active", takes: "times of day (22:00-06:00; Mon-Fri 08:00-18:00)", help: "asked only then (local time)",
            read: { settings, values in
                switch Schedule.parse(values[0]) {
                case .success(let s): settings.schedule = s
                case .failure(let problem): return problem.text
                }
                return nil
            }, shown: { $0.schedule.map { "active \($0.text)" } }),
        RuleSettingDeclaration(
            "region", takes: "[x, y, w, h], fractions of the frame", help: "the part of the frame it is asked about", list: true,
            read: { settings, values in
                let numbers = values.map { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard numbers.allSatisfy({ $0 != nil }) else { return "region: is four numbers: [x, y, w, h]" }
                switch Region.make(numbers.map { $0! }) {
                case .success(let region): settings.region = region
                case .failure(let problem): return problem.text
                }
                return nil
            }, shown: { $0.region.map { "region \($0.text)" } }),
        toggle("enabled", help: "false keeps it in the file, not asked", \.enabled, shown: (false, "disabled")),
        RuleSettingDeclaration(
            "device_class", takes: "one of Home Assistant's binary sensor classes", help: "what Home Assistant shows its answer as (occupancy)",
            read: { settings, values in
                let t = values[0].trimmingCharacters(in: .whitespaces).lowercased()
                guard deviceClasses.contains(t) else {
                    return
                        "device_class: is one of Home Assistant's binary sensor classes (\(deviceClasses.joined(separator: ", "))), not \"\(values[0])\""
                }
                settings.deviceClass = t
                return nil
            }, shown: { $0.deviceClass.map { "shown as \($0)" } }),
        toggle("clip", help: "false: no clip of its fires (with \(SettingName.clips) on)", \.clip, shown: (false, "no clip")),
        toggle("show_url", help: "true: its post/notify/run URL shown whole in records and check", \.showURL, shown: (true, "URL shown")),
        RuleSettingDeclaration(
            "describe", takes: "true, or a question", help: "a sentence about each fire (the question's answer)",
            read: { settings, values in
                switch Describe.parse(values[0]) {
                case .success(let d): settings.describe = d
                case .failure(let problem): return problem.text
                }
                return nil
            },
            shown: {
                switch $0.describe {
                case .standard?: "describe"
                case .question(let text)?: "describe \"\(text)\""
                case nil: nil
                }
            }),
        RuleSettingDeclaration(
            "cameras", takes: "a camera's name, or a list of them", help: "asked on these cameras only (every camera without it)",
            list: true, oneOrList: true,
            read: { settings, values in
                let names = values.map { $0.trimmingCharacters(in: .whitespaces) }
                guard !names.isEmpty else { return "cameras: names at least one camera" }
                if let bad = names.first(where: { !CameraEntry.isName($0) }) { return "cameras: \"\(bad)\": \(CameraEntry.nameRule)" }
                settings.cameras = names
                return nil
            }, shown: { $0.cameras.map { "cameras \($0.joined(separator: ", "))" } }),
    ]
}

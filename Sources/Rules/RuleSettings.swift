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

    /// Home Assistant's binary sensor classes (as of its 2024 releases).
    public static let deviceClasses = [
        "battery", "battery_charging", "carbon_monoxide", "cold", "connectivity", "door", "garage_door", "gas", "heat", "light", "lock",
        "moisture", "motion", "moving", "occupancy", "opening", "plug", "power", "presence", "problem", "running", "safety", "smoke",
        "sound", "tamper", "update", "vibration", "window",
    ]

    public init() {}

    /// True when nothing differs from the defaults.
    public var isDefault: Bool { self == RuleSettings() }

    /// The settings as `lookd check` and the status show them (`cooldown 60 s · confirm 2 of 3`).
    public var summary: String {
        var parts: [String] = []
        if let cooldown { parts.append("cooldown \(Self.number(cooldown)) s") }
        if window > 1 || confirm > 1 { parts.append("confirm \(confirm) of \(window)") }
        if let minConfidence { parts.append("min confidence \(Self.number(minConfidence))") }
        if on != .appear { parts.append("on \(on.rawValue)") }
        if let schedule { parts.append("active \(schedule.text)") }
        if let region { parts.append("region \(region.text)") }
        if !enabled { parts.append("disabled") }
        if let deviceClass { parts.append("shown as \(deviceClass)") }
        if !clip { parts.append("no clip") }
        if showURL { parts.append("URL shown") }
        switch describe {
        case .standard?: parts.append("describe")
        case .question(let text)?: parts.append("describe \"\(text)\"")
        case nil: break
        }
        return parts.joined(separator: " · ")
    }

    private static func number(_ x: Double) -> String { x.plainText }

    /// The keys a rule in the file may have besides `when:` and its reaction.
    public static let fileKeys = [
        "cooldown", "confirm", "min_confidence", "on", "enabled", "when_active", "describe", "device_class", "clip", "show_url",
    ]

    /// Reads one setting from the file; the problem in words when it is wrong.
    mutating func set(_ key: String, _ text: String) -> Problem? {
        let t = text.trimmingCharacters(in: .whitespaces).lowercased()
        switch key {
        case "cooldown":
            guard let s = Double(t), s.isFinite, (0...86400).contains(s) else { return "cooldown: is seconds from 0 to 86400, not \"\(text)\"" }
            cooldown = s
        case "confirm":
            let parts = t.split(separator: " ").filter { !$0.isEmpty }
            guard parts.count == 3, parts[1] == "of", let n = Int(parts[0]), let m = Int(parts[2]), n >= 1, m >= n, m <= 100 else {
                return "confirm: is \"N of M\" with 1 ≤ N ≤ M ≤ 100 (confirm: 2 of 3), not \"\(text)\""
            }
            (confirm, window) = (n, m)
        case "min_confidence":
            guard let p = Double(t), (0...1).contains(p) else { return "min_confidence: is a number from 0 to 1, not \"\(text)\"" }
            minConfidence = p
        case "when_active":
            switch Schedule.parse(text) {
            case .success(let s): schedule = s
            case .failure(let problem): return problem
            }
        case "describe":
            switch Describe.parse(text) {
            case .success(let d): describe = d
            case .failure(let problem): return problem
            }
        case "device_class":
            guard Self.deviceClasses.contains(t) else {
                return
                    "device_class: is one of Home Assistant's binary sensor classes (\(Self.deviceClasses.joined(separator: ", "))), not \"\(text)\""
            }
            deviceClass = t
        case "on":
            guard let edge = Edge(rawValue: t) else { return "on: is appear, disappear or both, not \"\(text)\"" }
            on = edge
        case "clip", "show_url":
            guard ["true", "yes", "on", "false", "no", "off"].contains(t) else { return "\(key): is true or false, not \"\(text)\"" }
            if key == "clip" { clip = ["true", "yes", "on"].contains(t) } else { showURL = ["true", "yes", "on"].contains(t) }
        default:
            guard ["true", "yes", "on", "false", "no", "off"].contains(t) else { return "enabled: is true or false, not \"\(text)\"" }
            enabled = ["true", "yes", "on"].contains(t)
        }
        return nil
    }
}

/// One setting of a `Target` (the watch's settings, the outputs'), declared once: what it says about
/// itself (`info`), how a given value lands in the target, and how the value in force reads. The
/// flag, the rules file's key, `--help` and `lookd check` all come from the declaration.
public struct Setting<Target> {
    public let info: SettingInfo
    let apply: (inout Target, String) throws(SettingProblem) -> Void
    let show: (Target) -> String?

    public init(
        _ name: SettingName, _ placeholder: String?, group: String, help: String, needs: SettingNeed? = nil, reload: Bool = false,
        defaultWords: String? = nil, show: @escaping (Target) -> String?,
        apply: @escaping (inout Target, String) throws(SettingProblem) -> Void
    ) {
        info = SettingInfo(
            placeholder: placeholder, name: name.key, group: group, help: help, needs: needs, reloadable: reload, defaultWords: defaultWords)
        self.apply = apply
        self.show = show
    }

    init(info: SettingInfo, apply: @escaping (inout Target, String) throws(SettingProblem) -> Void, show: @escaping (Target) -> String?) {
        self.info = info
        self.apply = apply
        self.show = show
    }

    /// The same setting, of the `Target` inside `Outer` at `path` (the model's settings inside a watch's).
    public func lifted<Outer>(_ path: WritableKeyPath<Outer, Target>) -> Setting<Outer> {
        let (apply, show) = (self.apply, self.show)
        return Setting<Outer>(
            info: info, apply: { (outer, text) throws(SettingProblem) in try apply(&outer[keyPath: path], text) },
            show: { show($0[keyPath: path]) })
    }

    /// The value in force in `target`, in the words a flag takes (nil: none).
    public func value(in target: Target) -> String? { show(target) }

    /// The default in words, read from `defaults` unless the declaration gives it.
    public func defaultValue(_ defaults: Target) -> String? { info.defaultWords ?? show(defaults) }

    /// Sets `text` in `target`, or says why it cannot be.
    public func set(_ text: String, in target: inout Target) throws(SettingProblem) { try apply(&target, text) }
}

extension Setting {
    /// A number within `range`, in `unit` (S: seconds).
    public static func number(
        _ name: SettingName, _ path: WritableKeyPath<Target, Double>, in range: ClosedRange<Double>, unit: String = "S", group: String,
        help: String, needs: SettingNeed? = nil, reload: Bool = false
    ) -> Setting {
        Setting(
            name, unit, group: group, help: help, needs: needs, reload: reload, show: { Self.words($0[keyPath: path]) },
            apply: {
                (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.number(text, in: range)
            })
    }

    /// A number within `range` that is unset (nil) by default.
    public static func number(
        _ name: SettingName, _ path: WritableKeyPath<Target, Double?>, in range: ClosedRange<Double>, unit: String = "S", group: String,
        help: String, needs: SettingNeed? = nil, reload: Bool = false, defaultWords: String? = nil
    ) -> Setting {
        Setting(
            name, unit, group: group, help: help, needs: needs, reload: reload, defaultWords: defaultWords,
            show: { $0[keyPath: path].map(Self.words) },
            apply: { (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.number(text, in: range) })
    }

    /// A whole number within `range`.
    public static func integer(
        _ name: SettingName, _ path: WritableKeyPath<Target, Int>, in range: ClosedRange<Int>, unit: String = "N", group: String, help: String,
        needs: SettingNeed? = nil, reload: Bool = false, defaultWords: String? = nil
    ) -> Setting {
        Setting(
            name, unit, group: group, help: help, needs: needs, reload: reload, defaultWords: defaultWords, show: { String($0[keyPath: path]) },
            apply: {
                (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.integer(text, in: range)
            })
    }

    /// A whole number within `range` that is unset (nil) by default.
    public static func integer(
        _ name: SettingName, _ path: WritableKeyPath<Target, Int?>, in range: ClosedRange<Int>, unit: String = "N", group: String, help: String,
        needs: SettingNeed? = nil, reload: Bool = false, defaultWords: String? = nil
    ) -> Setting {
        Setting(
            name, unit, group: group, help: help, needs: needs, reload: reload, defaultWords: defaultWords,
            show: { $0[keyPath: path].map { String($0) } },
            apply: { (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.integer(text, in: range) })
    }

    /// Words taken as they are (a path, a URL); unset by default.
    public static func text(
        _ name: SettingName, _ path: WritableKeyPath<Target, String?>, _ placeholder: String, group: String, help: String,
        needs: SettingNeed? = nil, reload: Bool = false, defaultWords: String? = nil
    ) -> Setting {
        Setting(
            name, placeholder, group: group, help: help, needs: needs, reload: reload, defaultWords: defaultWords,
            show: { $0[keyPath: path] }, apply: { (target, text) throws(SettingProblem) in target[keyPath: path] = text })
    }

    /// A switch: `--NAME` on the command line, `NAME: true|false` in the file.
    public static func toggle(
        _ name: SettingName, _ path: WritableKeyPath<Target, Bool>, inverted: Bool = false, group: String, help: String,
        needs: SettingNeed? = nil, reload: Bool = false
    ) -> Setting {
        Setting(
            name, nil, group: group, help: help, needs: needs, reload: reload, show: { $0[keyPath: path] != inverted ? "true" : "false" },
            apply: { (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.truth(text) != inverted })
    }

    /// `on` or `off` (the file also takes true and false).
    public static func onOff(
        _ name: SettingName, _ path: WritableKeyPath<Target, Bool?>, group: String, help: String, needs: SettingNeed? = nil,
        reload: Bool = false, defaultWords: String? = nil
    ) -> Setting {
        Setting(
            name, "on|off", group: group, help: help, needs: needs, reload: reload, defaultWords: defaultWords,
            show: { $0[keyPath: path].map { $0 ? "on" : "off" } },
            apply: { (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.onOff(text) })
    }

    /// `on` or `off`, on or off by default.
    public static func onOff(
        _ name: SettingName, _ path: WritableKeyPath<Target, Bool>, group: String, help: String, needs: SettingNeed? = nil, reload: Bool = false
    ) -> Setting {
        Setting(
            name, "on|off", group: group, help: help, needs: needs, reload: reload, show: { $0[keyPath: path] ? "on" : "off" },
            apply: {
                (target, text) throws(SettingProblem) in target[keyPath: path] = try Self.onOff(text)
            })
    }

    /// One of an enumeration's raw values.
    public static func choice<Value: RawRepresentable & CaseIterable>(
        _ name: SettingName, _ path: WritableKeyPath<Target, Value>, group: String, help: String, needs: SettingNeed? = nil,
        reload: Bool = false
    ) -> Setting where Value.RawValue == String {
        let names = Value.allCases.map(\.rawValue)
        return Setting(name, names.joined(separator: "|"), group: group, help: help, needs: needs, reload: reload) {
            $0[keyPath: path].rawValue
        } apply: { (target, text) throws(SettingProblem) in
            guard let value = Value(rawValue: text) else { throw SettingProblem("is \(Self.either(names)), not \"\(text)\"") }
            target[keyPath: path] = value
        }
    }
}

extension Setting {
    static func number(_ text: String, in range: ClosedRange<Double>) throws(SettingProblem) -> Double {
        guard let x = Double(text), x.isFinite, range.contains(x) else {
            throw SettingProblem("must be a number from \(words(range.lowerBound)) to \(words(range.upperBound)), not \"\(text)\"")
        }
        return x
    }

    static func integer(_ text: String, in range: ClosedRange<Int>) throws(SettingProblem) -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw SettingProblem("must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return n
    }

    static func truth(_ text: String) throws(SettingProblem) -> Bool {
        switch text {
        case "true", "on", "yes": return true
        case "false", "off", "no": return false
        default: throw SettingProblem("is true or false, not \"\(text)\"")
        }
    }

    static func onOff(_ text: String) throws(SettingProblem) -> Bool {
        switch text {
        case "on", "true": return true
        case "off", "false": return false
        default: throw SettingProblem("is on or off, not \"\(text)\"")
        }
    }

    /// A number as a flag takes it: 3, not 3.0; 0.01, not 1e-02.
    static func words(_ x: Double) -> String {
        x == x.rounded() && abs(x) < 1e15 ? String(Int64(x)) : "\(x)"
    }

    static func either(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " or " + names[names.count - 1]
    }
}

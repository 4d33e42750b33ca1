import LookCore

/// A command line split into positional words and `--name value` / `--name=value` options.
/// Flags (options without a value) are named up front, so `--grid photo.jpg` is not misread.
struct Arguments {
    private(set) var positional: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []

    /// The words an on|off option takes; one given bare (`--clips`) is on.
    static let onOffWords: Set<String> = ["on", "off", "true", "false", "yes", "no"]

    /// Parses `words`; `valued` are the options that take a value, `switches` those that do not, and
    /// `bare` the valued ones that may also stand alone, meaning `on` (`--clips`, `--gate`).
    init(_ words: [String], valued: Set<String>, switches: Set<String>, bare: Set<String> = []) throws(CommandFailure) {
        var i = 0
        var onlyPositional = false
        while i < words.count {
            let word = words[i]
            i += 1
            if onlyPositional || !word.hasPrefix("--") || word == "--" {
                if word == "--" && !onlyPositional { onlyPositional = true } else { positional.append(word) }
                continue
            }
            var name = String(word.dropFirst(2))
            var inline: String?
            if let eq = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: eq)...])
                name = String(name[..<eq])
            }
            if switches.contains(name) {
                guard inline == nil else { throw usage("--\(name) takes no value") }
                flags.insert(name)
            } else if valued.contains(name) {
                var value: String
                if let inline {
                    value = inline
                } else if bare.contains(name), i == words.count || !Self.onOffWords.contains(words[i].lowercased()) {
                    value = "on"
                } else {
                    guard i < words.count else { throw usage("--\(name) needs a value") }
                    value = words[i]
                    i += 1
                }
                // `--camera` is given once a camera: each value is kept, a line each.
                if name == SettingName.camera.key, let earlier = values[name] { value = earlier + "\n" + value }
                values[name] = value
            } else {
                throw usage("unknown option --\(name)")
            }
        }
    }

    /// The names of `infos` as `valued` and `switches` sets, and the on|off ones that may stand bare.
    static func names(_ infos: [SettingInfo]) -> (valued: Set<String>, switches: Set<String>, bare: Set<String>) {
        (
            Set(infos.filter { !$0.isSwitch }.map(\.name)), Set(infos.filter(\.isSwitch).map(\.name)),
            Set(infos.filter { $0.placeholder?.hasPrefix("on|off") == true }.map(\.name))
        )
    }

    /// The declared settings of `infos` that the command line gives (a switch as `true`).
    func given(_ infos: [SettingInfo]) -> [String: GivenSetting] {
        var given: [String: GivenSetting] = [:]
        for info in infos {
            if info.isSwitch, flags.contains(info.name) { given[info.name] = GivenSetting("true", from: .flag) }
            if !info.isSwitch, let value = values[info.name] { given[info.name] = GivenSetting(value, from: .flag) }
        }
        return given
    }

    func value(_ name: String) -> String? { values[name] }
    func value(_ name: SettingName) -> String? { values[name.key] }
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The option as a whole number within `range`, or `fallback` when it is absent.
    func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>) throws(CommandFailure) -> Int {
        guard let text = values[name] else { return fallback }
        guard let n = Int(text), range.contains(n) else {
            throw usage("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return n
    }

    /// The option as a number within `range`, or `fallback` when it is absent.
    func number(_ name: String, default fallback: Double, in range: ClosedRange<Double>) throws(CommandFailure) -> Double {
        guard let text = values[name] else { return fallback }
        guard let x = Double(text), range.contains(x) else {
            let (low, high) = (String(format: "%g", range.lowerBound), String(format: "%g", range.upperBound))
            throw usage("--\(name) must be a number from \(low) to \(high), not \"\(text)\"")
        }
        return x
    }
}

func usage(_ message: String) -> CommandFailure {
    CommandFailure(code: .usage, message: message + (message.hasSuffix(".") ? "" : ".") + " See `lookd --help`.")
}

import Foundation
import Platform

/// A setting in force: its value (nil: none) and where it came from.
public struct SettingInForce: Sendable, Equatable {
    public let name: String
    public let value: String?
    public let origin: SettingOrigin

    public init(name: String, value: String?, origin: SettingOrigin) {
        self.name = name
        self.value = value
        self.origin = origin
    }
}

/// The declared settings of one target, in the order `--help` lists them.
public struct SettingList<Target> {
    public let settings: [Setting<Target>]

    public init(_ settings: [Setting<Target>]) { self.settings = settings }

    public var infos: [SettingInfo] { settings.map(\.info) }

    /// `defaults` with each of these settings that `given` holds set; a bad value is a problem that
    /// names the flag or the file's line.
    public func resolve(_ given: [String: GivenSetting], over defaults: Target) throws(SettingProblem) -> Target {
        var target = defaults
        for setting in settings {
            guard let value = given[setting.info.name] else { continue }
            let text = Self.anchored(value.text, placeholder: setting.info.placeholder, origin: value.origin)
            do { try setting.set(text, in: &target) } catch { throw SettingProblem("\(value.named(setting.info.name)) \(error.text)") }
        }
        return target
    }

    /// A relative path written in a rules file's `settings:` is taken from that file's folder, as
    /// the file's reader means it (a service's working folder is /), not from the current folder.
    /// Paths are the values of settings whose placeholder names a FILE or a DIR; a URL, an inline
    /// form (`photo:yes`, `a=b`) and `off` are no paths. A placeholder `FILE.gguf` names files of
    /// that kind only: `ID|FILE.gguf` takes `shapes-tiny` (a catalog id, or a server's name for
    /// its model) as it is written, and `models/my.gguf` from the file's folder.
    static func anchored(_ text: String, placeholder: String?, origin: SettingOrigin) -> String {
        guard case .file(let file, _) = origin, let placeholder,
            placeholder.split(separator: "|").contains(where: { kind in
                kind == "FILE" || kind == "DIR" || (kind.hasPrefix("FILE.") && text.lowercased().hasSuffix(kind.dropFirst(4).lowercased()))
            }),
            !text.isEmpty, !text.hasPrefix("/"), !text.hasPrefix("~"), text != "off", text != "-",
            !text.contains(":"), !text.contains("=")
        else { return text }
        let folder = FilePath.folder(of: file)
        return folder.isEmpty ? text : (folder as NSString).appendingPathComponent(text)
    }

    /// Each setting's value in `target` and where it came from.
    public func inForce(_ target: Target, given: [String: GivenSetting]) -> [SettingInForce] {
        settings.map { SettingInForce(name: $0.info.name, value: $0.value(in: target), origin: given[$0.info.name]?.origin ?? .byDefault) }
    }

    /// Each setting's default in words (those that have one).
    public func defaults(_ defaults: Target) -> [String: String] {
        var words: [String: String] = [:]
        for setting in settings { words[setting.info.name] = setting.defaultValue(defaults) }
        return words
    }

    /// The settings whose value differs between `old` and `new`.
    public func changed(from old: Target, to new: Target) -> [SettingInfo] {
        settings.filter { $0.value(in: old) != $0.value(in: new) }.map(\.info)
    }
}

/// What all the declared settings (of every target) say together: the help, the check of what
/// each needs, and the names a flag or the rules file may use.
public struct SettingCatalog: Sendable {
    public let infos: [SettingInfo]
    /// Each setting's default in words.
    public let defaults: [String: String]

    public init(_ infos: [SettingInfo], defaults: [String: String]) {
        self.infos = infos
        self.defaults = defaults
    }

    public func info(_ name: String) -> SettingInfo? { infos.first { $0.name == name } }

    /// The first setting given that needs another one not given (an option with no effect), as a
    /// sentence naming what it needs.
    public func unmetNeed(_ given: [String: GivenSetting]) -> String? {
        unmetNeeds(given).first?.problem
    }

    /// Every setting in `given` without what it goes with: its name, and why.
    public func unmetNeeds(_ given: [String: GivenSetting]) -> [(name: String, problem: String)] {
        infos.compactMap { info in
            guard let value = given[info.name], let need = info.needs, !need.isMet(by: given) else { return nil }
            if info.isSwitch && value.text == "false" { return nil }
            return (info.name, "\(value.named(info.name)) goes with \(need.words); without it, it does nothing")
        }
    }

    /// `--help`'s lines for `groups`, in order: each setting as `--name VALUE  help (default …)`,
    /// wrapped to `width` columns.
    public func help(groups: [String], width: Int = 112) -> String {
        var lines: [String] = []
        for group in groups {
            lines.append("\(group):")
            for info in infos where info.group == group {
                let head = "  --\(info.name)" + (info.placeholder.map { " " + $0 } ?? "")
                var text = info.help
                if let value = defaults[info.name], !(info.isSwitch && value == "false") { text += " (default \(value))" }
                if let need = info.needs { text += "; goes with \(need.words)" }
                lines += Self.wrap(text, head: head, indent: 24, width: width)
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` after `head` (on its own line when `head` is longer than `indent`), wrapped.
    static func wrap(_ text: String, head: String, indent: Int, width: Int) -> [String] {
        var lines: [String] = []
        var line = String(repeating: " ", count: indent)
        if head.count < indent - 1 { line = head.padding(toLength: indent, withPad: " ", startingAt: 0) } else { lines.append(head) }
        var empty = true
        for word in text.split(separator: " ") {
            if !empty && line.count + 1 + word.count > width {
                lines.append(line)
                line = String(repeating: " ", count: indent)
                empty = true
            }
            line += (empty ? "" : " ") + word
            empty = false
        }
        lines.append(line)
        return lines
    }
}

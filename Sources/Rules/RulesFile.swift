import Foundation
import LookCore
import Platform
import ReactionDomain

/// The rules file (YAML): a `rules:` list, each rule a `when:` and exactly one reaction.
///
///     rules:
///       - when: a chessboard
///         sound: chime
///       - when: water rushing over rows of stones
///         effect: ripple
///         sound: water          # an effect's sound (its own when left out)
public enum RulesFile {
    /// Reads and checks the file at `path`.
    public static func load(path: String) throws(RulesError) -> RuleSet {
        guard FileManager.default.fileExists(atPath: path) else { throw RulesError(source: path, problem: "there is no rules file here") }
        return try parse(try text(path, what: "rules file", limit: 1 << 20), source: path)
    }

    /// A YAML file's text (the rules file, a truth file), at most `limit` bytes; one that cannot be
    /// read, is not text or is not UTF-8 is a problem naming `what` it should be.
    static func text(_ path: String, what: String, limit: Int) throws(RulesError) -> String {
        let data: Data
        switch SmallInput.read(path, limit: limit) {
        case .success(let bytes): data = Data(bytes)
        case .failure(let failure): throw RulesError(source: path, problem: "the \(what) cannot be read: \(failure.reason)")
        }
        guard !data.contains(0) else {
            throw RulesError(source: path, problem: "this is not a text file; a \(what) is YAML text")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw invalidUTF8(data, source: path) }
        return text
    }

    /// A YAML text's tree (nil when empty); a syntax error is a problem with its line and column.
    static func root(_ text: String, source: String) throws(RulesError) -> YAMLNode? {
        do {
            return try YAMLNode.parse(text)
        } catch {
            throw RulesError(source: source, line: error.mark.line, column: error.mark.column, problem: explain(error, in: text))
        }
    }

    /// Checks rules written as YAML text; `source` names it in messages.
    public static func parse(_ text: String, source: String) throws(RulesError) -> RuleSet {
        let root = try root(text, source: source)
        guard let root else { throw .noRules(source) }
        func fail(_ node: YAMLNode, _ problem: String) -> RulesError {
            RulesError(source: source, line: node.mark.line, column: node.mark.column, problem: problem)
        }
        guard case .mapping(let top, _) = root else {
            if case .scalar(let s, _, _) = root, s.isEmpty { throw .noRules(source) }
            throw fail(root, "a rules file starts with rules: and a list of rules")
        }
        var list: YAMLNode?
        var masks: [GateMask]?
        var settings: [String: GivenSetting]?
        var cameras: [CameraEntry] = []
        for (key, value) in top {
            if key.text == "gate" {
                guard masks == nil else { throw fail(key, "gate: is written twice") }
                masks = try gate(value, fail: fail)
                continue
            }
            if key.text == "settings" {
                guard settings == nil else { throw fail(key, "settings: is written twice") }
                settings = try self.settings(value, source: source, fail: fail, cameras: &cameras)
                continue
            }
            guard key.text == "rules" else {
                throw fail(key, "unknown key \"\(key.text ?? key.kind)\"; a rules file has rules: (and settings:, gate:)")
            }
            guard list == nil else { throw fail(key, "rules: is written twice; put every rule in one rules: list") }
            list = value
        }
        guard let list else { throw .noRules(source) }
        let items: [YAMLNode]
        switch list {
        case .sequence(let nodes, _): items = nodes
        case .scalar(let s, _, _) where s.isEmpty || s == "~" || s == "null": items = []
        default: throw fail(list, "rules: is a list of rules, each starting with \"- when:\"")
        }
        guard !items.isEmpty else { throw .noRules(source) }
        var rules: [Rule] = []
        for item in items { rules.append(try rule(item, source: source, fail: fail)) }
        if !rules.contains(where: \.settings.enabled) {
            throw RulesError(source: source, problem: "every rule is enabled: false; enable one, or there is nothing to watch")
        }
        let set = RuleSet(
            rules: rules.filter(\.settings.enabled), warnings: ReactionWords.duplicates(rules, source: source), gateMasks: masks ?? [],
            disabled: rules.filter { !$0.settings.enabled }, settings: settings ?? [:], cameras: cameras)
        if !cameras.isEmpty { try set.checkCameras(cameras.map(\.name), source: source) }
        return set
    }

    /// `settings:`: watch settings by their long names (`cooldown: 5`, `mqtt: mqtt://host`), each one
    /// value, kept as text with its line (lookd's declarations check them).
    private static func settings(
        _ node: YAMLNode, source: String, fail: (YAMLNode, String) -> RulesError, cameras: inout [CameraEntry]
    ) throws(RulesError) -> [String: GivenSetting] {
        if case .scalar(let s, _, _) = node, s.isEmpty || s == "~" || s == "null" { return [:] }
        guard case .mapping(let pairs, _) = node else { throw fail(node, "settings: takes watch settings by name, such as cooldown: 5") }
        var given: [String: GivenSetting] = [:]
        for (key, value) in pairs {
            guard let name = key.text, !name.isEmpty else { throw fail(key, "a setting's name is a word, such as cooldown") }
            guard given[name] == nil, name != "cameras" || cameras.isEmpty else { throw fail(key, "\(name): is written twice in settings:") }
            if name == "cameras" {
                cameras = try CameraEntry.list(value, source: source, fail: fail)
                continue
            }
            guard let text = value.text else { throw fail(value, "\(name): takes one value, not \(value.kind)") }
            given[name] = GivenSetting(text, from: .file(source, line: key.mark.line))
        }
        return given
    }

    /// `gate:` with `mask:`, a list of [left, top, right, bottom] in fractions of the picture.
    private static func gate(_ node: YAMLNode, fail: (YAMLNode, String) -> RulesError) throws(RulesError) -> [GateMask] {
        guard case .mapping(let pairs, _) = node else { throw fail(node, "gate: takes mask: and a list of [left, top, right, bottom]") }
        var masks: [GateMask] = []
        for (key, value) in pairs {
            guard key.text == "mask" else { throw fail(key, "unknown gate setting \"\(key.text ?? key.kind)\"; gate: takes mask:") }
            guard case .sequence(let items, _) = value else { throw fail(value, "mask: is a list of [left, top, right, bottom]") }
            for item in items {
                guard case .sequence(let numbers, _) = item else { throw fail(item, "a gate mask is [left, top, right, bottom]") }
                let values = numbers.map { $0.text.flatMap(Double.init) }
                guard values.allSatisfy({ $0 != nil }) else { throw fail(item, "a gate mask's four values are numbers") }
                switch GateMask.make(values.map { $0! }) {
                case .success(let mask): masks.append(mask)
                case .failure(let problem): throw fail(item, problem.text)
                }
            }
        }
        return masks
    }

    private static func rule(
        _ node: YAMLNode, source: String,
        fail: (YAMLNode, String) -> RulesError
    ) throws(RulesError) -> Rule {
        guard case .mapping(let pairs, _) = node else {
            throw fail(node, "each rule is a when: and a reaction, like \"- when: a chessboard\" then \"sound: chime\"")
        }
        var values: [String: (key: YAMLNode, value: YAMLNode)] = [:]
        for pair in pairs {
            guard let key = pair.key.text else { throw fail(pair.key, "a rule's keys are words such as when: and sound:") }
            guard key == "when" || ReactionWords.fileKeys.contains(key) || RuleSettings.declaration(key) != nil else {
                if key == "haptic" { throw fail(pair.key, "haptic: there is no buzz on Linux; use sound: or say:") }
                throw fail(
                    pair.key,
                    "unknown key \"\(key)\"; a rule has when:, one reaction (\(ReactionWords.listed)) and settings "
                        + "(\(RuleSettings.fileKeys.joined(separator: ", ")))")
            }
            if values[key] != nil { throw fail(pair.key, "\(key): is written twice in this rule") }
            guard pair.value.text != nil || RuleSettings.declaration(key)?.list == true || ReactionKinds.named(key) != nil else {
                throw fail(pair.value, "\(key): takes a single value, not \(pair.value.kind)")
            }
            values[key] = pair
        }
        guard let when = values["when"] else { throw fail(node, "a rule needs a condition: when: <what to look for>") }
        let condition: String
        switch ReactionWords.condition(when.value.text!) {
        case .success(let c): condition = c
        case .failure(let problem): throw fail(when.value, problem.text)
        }
        // An effect's `sound:` is its companion, not a second reaction; a kind with companions is named first.
        let written = ReactionKinds.all.filter { values[$0.key] != nil }
        let companions = Set(written.flatMap { $0.companions })
        let kinds = written.filter { !companions.contains($0.key) }.sorted { !$0.companions.isEmpty && $1.companions.isEmpty }
        guard let kind = kinds.first else {
            throw fail(node, "the rule \"\(condition)\" has no reaction; add one of \(ReactionWords.listed)")
        }
        guard kinds.count == 1 else {
            throw fail(
                values[kinds[1].key]!.key, "a rule has exactly one reaction; this one has \(kinds.map { $0.key }.joined(separator: " and "))")
        }
        let reaction: Reaction
        let value = values[kind.key]!.value
        do throws(ReactionProblem) {
            let beside = Dictionary(uniqueKeysWithValues: kind.companions.compactMap { key in values[key].map { (key, $0.value.reactionValue) } })
            reaction = Reaction(try kind.read(value.reactionValue, beside: beside))
        } catch {
            throw RulesError(
                source: source, line: error.line ?? value.mark.line, column: error.column ?? value.mark.column, problem: error.text)
        }
        var settings = try Self.settings(values, fail: fail)
        // A reaction that waits for the fire's description has one asked.
        if reaction.waitsForDescription, settings.describe == nil { settings.describe = .standard }
        if reaction.waitsForClip, !settings.clip, let (_, value) = values["clip"] {
            throw fail(value, "clip: false, and its \(reaction.kind) waits for the clip (wait: clip): one of the two")
        }
        return Rule(condition: condition, reaction: reaction, line: when.key.mark.line, column: when.key.mark.column, settings: settings)
    }

    /// A rule's own settings, each read by its declaration (a list, or one value or a list).
    private static func settings(
        _ values: [String: (key: YAMLNode, value: YAMLNode)], fail: (YAMLNode, String) -> RulesError
    ) throws(RulesError) -> RuleSettings {
        var settings = RuleSettings()
        for declaration in RuleSettings.declared {
            guard let (_, value) = values[declaration.key] else { continue }
            let items: [String]
            if declaration.oneOrList, let text = value.text {
                items = [text]
            } else if declaration.list {
                guard case .sequence(let nodes, _) = value else { throw fail(value, "\(declaration.key): is \(declaration.takes)") }
                items = nodes.map { $0.text ?? "" }
            } else {
                items = [value.text!]
            }
            if let problem = declaration.read(&settings, items) { throw fail(value, problem) }
        }
        return settings
    }

    /// libyaml's words for a parse error, with what a person most often did: a tab in the indentation.
    private static func explain(_ error: YAMLFailure, in text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard error.mark.line >= 1, error.mark.line <= lines.count else { return error.message }
        let line = lines[error.mark.line - 1]
        if line.prefix(while: { $0 == " " || $0 == "\t" }).contains("\t") {
            return "a tab in the indentation; YAML indents with spaces (\(error.message))"
        }
        return error.message
    }

    /// Where the first byte that is not UTF-8 is, as a line and column.
    static func invalidUTF8(_ data: Data, source: String) -> RulesError {
        let bytes = [UInt8](data)
        var line = 1
        var lineStart = 0
        var i = 0
        while i < bytes.count {
            let length = utf8Length(bytes, at: i)
            guard length > 0 else {
                let column = String(decoding: bytes[lineStart..<i], as: UTF8.self).count + 1
                let hex = String(bytes[i], radix: 16, uppercase: true)
                return RulesError(
                    source: source, line: line, column: column,
                    problem: "the byte 0x\(hex) is not UTF-8 text; save the rules file as UTF-8")
            }
            if bytes[i] == 0x0A { line += 1; lineStart = i + 1 }
            i += length
        }
        return RulesError(source: source, problem: "this is not UTF-8 text; save the rules file as UTF-8")
    }

    /// The length of the well-formed UTF-8 sequence at `i`, or 0.
    private static func utf8Length(_ b: [UInt8], at i: Int) -> Int {
        let lead = b[i]
        let (length, low, high): (Int, UInt8, UInt8)
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
        case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
        case 0xED: (length, low, high) = (3, 0x80, 0x9F)
        case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
        case 0xF4: (length, low, high) = (4, 0x80, 0x8F)
        default: return 0
        }
        guard i + length <= b.count, (low...high).contains(b[i + 1]) else { return 0 }
        for k in 2..<length where !(0x80...0xBF).contains(b[i + k]) { return 0 }
        return length
    }
}

import LookCore

/// One camera of a watch of several (`settings: cameras:` in the rules file, or `--camera
/// NAME=SOURCE`): its name, its source, and its own settings, which take the place of the watch's.
///
///     settings:
///       cameras:
///         door: /dev/video0
///         yard:
///           source: rtsp://yard.local/stream
///           gate-threshold: 0.05
///           size: 640
///           show_url: true     # its URL shown whole (by default: scheme, user, host and port)
public struct CameraEntry: Sendable, Equatable {
    public let name: String
    public let source: String
    /// Its own settings by their long names (each one of `CameraEntry.ownSettings`).
    public let settings: [String: GivenSetting]
    /// Where it is written (0 for a flag).
    public let line: Int
    public let column: Int
    /// `show_url: true`: its source's URL is shown whole; by default it is shown as an outbound URL
    /// is (`Secrets.outbound`: scheme, user, host and port), wherever anything is written or shown.
    public var showURL = false

    public init(name: String, source: String, settings: [String: GivenSetting] = [:], line: Int = 0, column: Int = 0) {
        (self.name, self.source, self.settings, self.line, self.column) = (name, source, settings, line, column)
    }

    /// Marks its source's URL as a secret to mask (unless `show_url: true`).
    public func maskSource() { if !showURL { Secrets.registerOutbound(source) } }

    /// The settings a camera may have of its own: its picture, its gate, its pace, its clips and snapshots.
    public static let ownSettings: [SettingName] = [
        .size, .cameraSize, .gate, .gateThreshold, .gateMax, .gateFps, .reuse, .reuseThreshold, .reuseBound, .reuseRefresh, .every, .pace, .clips,
        .preRoll, .postRoll, .snapshots,
    ]

    /// Whether `name` can name a camera: 1 to 32 letters, digits, `-` and `_`, beginning with a
    /// letter (it names folders, MQTT topics, Home Assistant devices and status files, where a name
    /// that began with digits would read as a process's number: `status-12-x.json`).
    public static func isName(_ name: String) -> Bool {
        (1...32).contains(name.count) && name.unicodeScalars.first.map { $0.isASCII && $0.properties.isAlphabetic } == true
            && name.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }
    }

    static let nameRule = "a camera's name is 1 to 32 letters, digits, - and _, beginning with a letter"

    /// Whether two lists name the same cameras with the same sources and own settings (wherever
    /// they are written).
    public static func same(_ a: [CameraEntry], _ b: [CameraEntry]) -> Bool {
        func key(_ list: [CameraEntry]) -> [String] {
            list.map { "\($0.name)=\($0.source) \($0.settings.mapValues(\.text).sorted { $0.key < $1.key })" }
        }
        return key(a) == key(b)
    }

    /// `--camera NAME=SOURCE`; the problem in words when it is not that (a predicate that follows the
    /// flag's name, as every setting's problem is).
    public static func flag(_ text: String) -> Result<CameraEntry, SettingProblem> {
        guard let eq = text.firstIndex(of: "=") else {
            return .failure(SettingProblem("is NAME=SOURCE (door=/dev/video0), not \"\(text)\""))
        }
        let (name, source) = (String(text[..<eq]), String(text[text.index(after: eq)...]))
        guard isName(name) else { return .failure(SettingProblem("\"\(text)\": \(nameRule)")) }
        guard !source.isEmpty else { return .failure(SettingProblem("\"\(text)\" has no source after the =")) }
        return .success(CameraEntry(name: name, source: source))
    }

    /// `cameras:` in the rules file's settings: a map of names, each a source or a map with `source:`
    /// and the camera's own settings; every problem with its line and column.
    static func list(_ node: YAMLNode, source file: String, fail: (YAMLNode, String) -> RulesError) throws(RulesError) -> [CameraEntry] {
        guard case .mapping(let pairs, _) = node, !pairs.isEmpty else {
            throw fail(node, "cameras: maps each camera's name to its source (door: /dev/video0)")
        }
        var cameras: [CameraEntry] = []
        for (key, value) in pairs {
            guard let name = key.text, isName(name) else { throw fail(key, nameRule) }
            guard !cameras.contains(where: { $0.name == name }) else { throw fail(key, "the camera \(name) is named twice") }
            let (line, column) = (key.mark.line, key.mark.column)
            if let text = value.text {
                guard !text.isEmpty else { throw fail(value, "the camera \(name) has no source") }
                cameras.append(CameraEntry(name: name, source: text, line: line, column: column))
                continue
            }
            guard case .mapping(let items, _) = value else { throw fail(value, "the camera \(name) is a source, or a map with source:") }
            var source: String?
            var settings: [String: GivenSetting] = [:]
            var showURL = false
            for (k, v) in items {
                let setting = k.text ?? ""
                if setting == "show_url" {
                    guard let flag = v.text.flatMap(Bool.init) else { throw fail(v, "show_url: is true or false") }
                    showURL = flag
                    continue
                }
                guard setting == "source" || ownSettings.contains(where: { $0.key == setting }) else {
                    throw fail(
                        k,
                        "\"\(setting)\" is not a camera's own setting; a camera has source:, show_url: and \(ownSettings.map(\.key).joined(separator: ", "))"
                    )
                }
                guard let text = v.text else { throw fail(v, "\(setting): takes one value, not \(v.kind)") }
                guard settings[setting] == nil, setting != "source" || source == nil else { throw fail(k, "\(setting): is written twice") }
                if setting == "source" { source = text } else { settings[setting] = GivenSetting(text, from: .file(file, line: k.mark.line)) }
            }
            guard let source, !source.isEmpty else { throw fail(value, "the camera \(name) has no source: (source: /dev/video0)") }
            var entry = CameraEntry(name: name, source: source, settings: settings, line: line, column: column)
            entry.showURL = showURL
            cameras.append(entry)
        }
        return cameras
    }
}

extension Rule {
    /// Whether it is asked on `camera`: it names it, or it names no camera.
    public func isAsked(on camera: String) -> Bool { settings.cameras?.contains(camera) ?? true }

    /// Whether it is asked on `camera`: every rule is asked on the only camera of a watch of one source.
    public func isAsked(on camera: CameraName) -> Bool { !camera.isNamed || isAsked(on: camera.name) }
}

extension RuleSet {
    /// The rules a camera asks: those that name it, and those that name no camera.
    public func forCamera(_ camera: CameraName) -> RuleSet {
        var set = self
        set.rules = rules.filter { $0.isAsked(on: camera) }
        set.disabled = disabled.filter { $0.isAsked(on: camera) }
        return set
    }

    /// A rule that names a camera not among `cameras` (nor among the file's own, which `--camera`
    /// flags may leave out: a watch of one of them) is refused, at its line and column, and so is a
    /// camera that no rule is asked on.
    public func checkCameras(_ cameras: [String], source: String) throws(RulesError) {
        for rule in rules + disabled {
            for name in rule.settings.cameras ?? [] where !cameras.contains(name) && !self.cameras.contains(where: { $0.name == name }) {
                throw RulesError(
                    source: source, line: rule.line, column: rule.column,
                    problem:
                        "the rule \"\(rule.condition)\" names the camera \"\(name)\", and there is none of that name (the cameras: \(cameras.joined(separator: ", ")))"
                )
            }
        }
        if let idle = cameras.first(where: { forCamera(CameraName($0)).rules.isEmpty }) {
            throw RulesError(
                source: source,
                problem: "no rule is asked on the camera \(idle): each names other cameras (a rule without cameras: is asked on every camera)")
        }
    }

    /// A watch of one source has no camera to name: a rule that names one is refused.
    public func checkNoCameras(source: String) throws(RulesError) {
        guard let rule = (rules + disabled).first(where: { $0.settings.cameras != nil }) else { return }
        throw RulesError(
            source: source, line: rule.line, column: rule.column,
            problem:
                "the rule \"\(rule.condition)\" names cameras, and this watch has one source: give the cameras (cameras: in settings:, or \(SettingName.camera) NAME=SOURCE), or leave cameras: out"
        )
    }
}

import Config
import Foundation
import History
import LookCore
import Media
import Outputs
import Platform
import Rules

extension WatchSettings {
    /// What every declared setting says, with its default, for `--help`, the needs and `lookd check`.
    public static var catalog: SettingCatalog { SettingCatalog(declared.infos, defaults: declared.defaults(WatchSetup())) }

    /// The settings given: the rules file's `settings:` under LOOKD_ENGINE under the flags; a name
    /// the file cannot hold, or a setting given without what it needs, is a problem (`needs: false`:
    /// not yet; each camera's settings are checked for what they need with its source).
    public static func given(
        flags: [String: GivenSetting], file: [String: GivenSetting], environment: [String: GivenSetting] = ModelSettings.environment(),
        needs: Bool = true
    ) throws(SettingProblem) -> [String: GivenSetting] {
        let catalog = catalog
        for (name, value) in file.sorted(by: { $0.key < $1.key }) {
            guard catalog.info(name) != nil else {
                throw SettingProblem("\(value.named(name)) is not a setting (lookd watch --help lists them by these names)")
            }
            guard name != SettingName.rules.key else {
                throw SettingProblem("\(value.named(name)): the rules file is named by \(SettingName.rules), not in itself")
            }
        }
        let given = file.merging(environment) { $1 }.merging(flags) { $1 }
        if needs, let problem = catalog.unmetNeed(given) { throw SettingProblem(problem) }
        return given
    }

    /// A watch's setup from the settings given; a watch needs a source, `lookd check` does not.
    public static func setup(_ given: [String: GivenSetting], needsSource: Bool = true) throws(SettingProblem) -> WatchSetup {
        var setup = try declared.resolve(given, over: WatchSetup())
        if case .frames = setup.watch.sourceOptions.pace { setup.watch.sourceOptions.pace = .frames(every: setup.every) }
        if needsSource && setup.watch.source.isEmpty {
            throw SettingProblem(
                "watch needs \(SettingName.source) /dev/video0|FILE|URL|DIR, or cameras: \(SettingName.camera) NAME=SOURCE (or source: or cameras: in the rules file's settings:)"
            )
        }
        setup.watch.statePath = statePath(setup.state, source: setup.watch.source, recordDir: setup.watch.recordDir)
        setup.outputs.historyPath =
            setup.history == "off" ? nil : setup.history ?? (setup.watch.recordDir as NSString).appendingPathComponent(HistoryStore.fileName)
        setup.outputs.keepAge = setup.keepDays * 86400
        try clips(&setup)
        setup.watch.reviewPage = setup.outputs.http.map { $0.url + (setup.outputs.historyPath == nil ? "/" : "/history") }
        setup.watch.posts.connectLimit = min(setup.watch.posts.connectLimit, setup.watch.posts.timeLimit)
        setup.outputs.httpToken = try httpToken(setup, given: given)
        if let http = setup.outputs.http, let named = given[SettingName.http.key]?.named(.http), !http.isLoopback && setup.outputs.httpToken == nil {
            throw SettingProblem(
                "\(named) \(http.host):\(http.port) is reachable from other machines: set a token (LOOKD_HTTP_TOKEN in the env file, or \(SettingName.httpToken))"
            )
        }
        if let truth = setup.truth {
            // A truth file (lookd eval's: its photos score the answers, its spans go on the page), or the inline form.
            if truth.hasSuffix(".yaml") || truth.hasSuffix(".yml") || FileManager.default.fileExists(atPath: truth) {
                do throws(RulesError) {
                    let file = try TruthFile.load(path: truth)
                    (setup.watch.truth, setup.outputs.truth) = (file.photos, file)
                } catch {
                    throw SettingProblem(error.description)
                }
            } else {
                do { setup.watch.truth = try PhotoTruth.parse(truth) } catch { throw SettingProblem(error.problem) }
            }
        }
        return setup
    }

    /// `--clips`: on for the service unless given; what the source keeps for them (the feed is made
    /// from this by the composition root: `WatchSetup.makeClipFeed`), and the folder beside the
    /// history. A folder of photos has no seconds before a fire.
    static func clips(_ setup: inout WatchSetup, environment: [String: String] = ProcessInfo.processInfo.environment) throws(SettingProblem) {
        let photos = SourceKinds.isFolder(setup.watch.source)
        guard setup.clips ?? (environment["NOTIFY_SOCKET"] != nil && !photos), !setup.watch.source.isEmpty else { return }
        if photos {
            throw SettingProblem("\(SettingName.clips) needs a video, a stream or a camera: a folder of photos has no seconds before a fire")
        }
        let home = setup.outputs.historyPath.map { FilePath.folder(of: $0) } ?? setup.watch.recordDir
        // What waits for a clip (wait: clip) waits for the post-roll, a late live source and the writing.
        setup.watch.posts.clipWait = setup.postRoll + ClipOutput.patience + 15
        // A keyframe interval's slack (4 s) before the pre-roll, so that a clip can start on one.
        setup.outputs.clips = ClipPlan(
            folder: ((home.isEmpty ? "." : home) as NSString).appendingPathComponent("clips"), preRoll: setup.preRoll,
            postRoll: setup.postRoll, keep: (setup.keepDays * 86400, Int(setup.keepSize)),
            feedSeconds: setup.preRoll + setup.postRoll + 4, feedBudget: setup.clipMemory << 20)
    }

    /// The page's token: from `--http-token-file FILE` (its first line), LOOKD_HTTP_TOKEN, or
    /// `--http-token` (which the command warns about: any local user can read it in the process list).
    static func httpToken(_ setup: WatchSetup, given: [String: GivenSetting]) throws(SettingProblem) -> String? {
        var token = setup.httpToken
        if let path = setup.httpTokenFile, let named = given[SettingName.httpTokenFile.key]?.named(.httpTokenFile) {
            guard token == nil else { throw SettingProblem("\(named) and \(SettingName.httpToken): give one of them") }
            guard let read = OutputSettings.token(fromFile: path) else { throw SettingProblem("\(named) \(path) cannot be read, or is over 4 kB") }
            token = read
        }
        token = token ?? ProcessInfo.processInfo.environment["LOOKD_HTTP_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if let token, let problem = OutputSettings.tokenProblem(token) { throw SettingProblem(problem) }
        return token
    }

    /// `--state FILE|off`: where switches and counts are kept across restarts. By default they are
    /// kept (in the record folder) for what runs for months: a camera or a stream, or a service.
    static func statePath(
        _ given: String?, source: String, recordDir: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if given == "off" { return nil }
        if let given { return given }
        var folder: ObjCBool = false
        let file = FileManager.default.fileExists(atPath: source, isDirectory: &folder) && !source.hasPrefix("/dev/")
        guard !file || environment["NOTIFY_SOCKET"] != nil else { return nil }
        return (recordDir as NSString).appendingPathComponent(WatchConfig.stateFile)
    }
}

/// A reload's reading of the rules file's `settings:`: the flags still override the file; what a
/// reload may change is taken from the new file, the rest stays as the start had it.
public struct FileSettingsReader: SettingsRereader {
    let flags: [String: GivenSetting]
    let started: [String: GivenSetting]
    /// The camera of a watch of several: its source, folder and own settings stay as they started.
    let camera: CameraEntry?

    public init(flags: [String: GivenSetting], started: [String: GivenSetting], camera: CameraEntry? = nil) {
        (self.flags, self.started, self.camera) = (flags, started, camera)
    }

    public func reread(file: [String: GivenSetting], running: WatchConfig) throws(SettingProblem) -> SettingsReread<WatchConfig> {
        // A camera's settings are checked for what they need with its own source and settings in.
        var given = try WatchSettings.given(flags: flags, file: file, needs: camera == nil)
        if let camera {
            given = given.merging(camera.settings) { $1 }.merging(CameraSetup.place(in: started)) { $1 }
            given[SettingName.camera.key] = nil
            // The watch's setting for another kind of source is not this camera's (as at the start).
            for (name, _) in WatchSettings.catalog.unmetNeeds(given) where camera.settings[name] == nil { given[name] = nil }
            if let problem = WatchSettings.catalog.unmetNeed(given) { throw SettingProblem(problem) }
        }
        let declared = WatchSettings.declared
        let live = Set(declared.infos.filter(\.reloadable).map(\.name))
        let kept = started.filter { !live.contains($0.key) }.merging(given.filter { live.contains($0.key) }) { $1 }
        var current = try WatchSettings.setup(started)
        current.watch = running
        let changed = declared.changed(from: current, to: try WatchSettings.setup(given))
        var config = try WatchSettings.setup(kept).watch
        (config.settingsReader, config.camera) = (running.settingsReader, running.camera)
        if let camera { config.placeFolders(of: camera) }
        return SettingsReread(
            config: config, applied: changed.filter(\.reloadable).map(\.name), needRestart: changed.filter { !$0.reloadable }.map(\.name))
    }
}

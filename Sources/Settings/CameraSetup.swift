import Config
import Foundation
import LookCore
import Outputs
import Records
import Rules

/// One camera's settings in force in a watch of several: the watch's settings, with the camera's
/// source and its own settings in their place, its records in a folder of its name, and its name
/// on the outputs (its status file, its Home Assistant device, its rows in the one history). A watch of one source has one, with no name.
public struct CameraSetup {
    /// Its name (`CameraName.only`: a watch of one source, `--source`).
    public let name: CameraName
    public var setup: WatchSetup
    public let given: [String: GivenSetting]
    /// Its entry (nil: a watch of one source).
    public let entry: CameraEntry?

    /// The cameras of a watch: `--camera` flags (in place of the file's), else the rules file's
    /// `settings: cameras:`, else the one `--source`. Two cameras of one name, cameras with
    /// `--source` too, or a setting given without what it needs (with each camera's source), are a
    /// problem. `given`: `WatchSettings.given(…, needs: false)`.
    public static func cameras(
        _ given: [String: GivenSetting], flags: [String: GivenSetting], file: [CameraEntry]
    ) throws(SettingProblem) -> [CameraSetup] {
        guard given[SettingName.camera.key] != nil || !file.isEmpty else {
            if let problem = WatchSettings.catalog.unmetNeed(given) { throw SettingProblem(problem) }
            var setup = try WatchSettings.setup(given)
            setup.watch.settingsReader = FileSettingsReader(flags: flags, started: given)
            return [CameraSetup(name: .only, setup: setup, given: given, entry: nil)]
        }
        let base = try WatchSettings.setup(given, needsSource: false)
        let cameras = base.cameras.isEmpty ? file : base.cameras
        if let source = given[SettingName.source.key] {
            throw SettingProblem(
                "\(source.named(.source)) and cameras are one or the other: give that camera as \(SettingName.camera) NAME=SOURCE (or in cameras:) too"
            )
        }
        var seen = Set<String>()
        var setups: [CameraSetup] = []
        // A watch's setting that goes with one kind of source (--photo-seconds with a folder) is
        // the setting of each camera of that kind; it is refused only when no camera can take it.
        var unmet: [String: (problem: String, cameras: Int)] = [:]
        for camera in cameras {
            guard seen.insert(camera.name).inserted else { throw SettingProblem("\(SettingName.camera) \(camera.name) is given twice") }
            setups.append(try one(camera, given: given, base: base, flags: flags, unmet: &unmet))
        }
        if let (_, none) = unmet.sorted(by: { $0.key < $1.key }).first(where: { $0.value.cameras == cameras.count }) {
            throw SettingProblem(none.problem)
        }
        return setups
    }

    /// One camera's setup: the watch's settings with its source, its folder, its own settings and
    /// its name in place. A watch's setting that needs another kind of source is left out, and
    /// noted in `unmet` (refused only when no camera can take it).
    private static func one(
        _ camera: CameraEntry, given: [String: GivenSetting], base: WatchSetup, flags: [String: GivenSetting],
        unmet: inout [String: (problem: String, cameras: Int)]
    ) throws(SettingProblem) -> CameraSetup {
        var mine = given.merging(camera.settings) { $1 }
        mine[SettingName.camera.key] = nil
        guard camera.settings[SettingName.record.key] == nil else { throw SettingProblem("the camera \(camera.name): record: is the watch's") }
        let origin: SettingOrigin = camera.line > 0 ? (given[SettingName.rules.key].map { .file($0.text, line: camera.line) } ?? .flag) : .flag
        mine[SettingName.source.key] = GivenSetting(camera.source, from: origin)
        // Its records in a folder of its name; the event log, one for all, names the camera on each line.
        let folder = (base.watch.recordDir as NSString).appendingPathComponent(camera.name)
        mine[SettingName.record.key] = GivenSetting(folder, from: given[SettingName.record.key]?.origin ?? .byDefault)
        mine[SettingName.log.key] = mine[SettingName.log.key] ?? GivenSetting(base.watch.eventLogPath, from: .byDefault)
        for (name, problem) in WatchSettings.catalog.unmetNeeds(mine) where camera.settings[name] == nil && given[name] != nil {
            mine[name] = nil
            unmet[name] = (unmet[name]?.problem ?? problem, (unmet[name]?.cameras ?? 0) + 1)
        }
        var setup: WatchSetup
        do throws(SettingProblem) {
            if let problem = WatchSettings.catalog.unmetNeed(mine) { throw SettingProblem(problem) }
            setup = try WatchSettings.setup(mine)
        } catch {
            throw SettingProblem("the camera \(camera.name): \(error.text)")
        }
        setup.watch.camera = CameraName(camera.name)
        setup.watch.placeFolders(of: camera)
        setup.cameras = []
        setup.outputs.name = "\(base.outputs.name)-\(camera.name)"
        guard OutputSettings.isName(setup.outputs.name) else {
            throw SettingProblem(
                "the camera \(camera.name): \(SettingName.name) and the camera's name make \(setup.outputs.name), over 64 characters")
        }
        // One history for every camera, each row naming its camera (`lookd history --camera NAME`).
        (setup.outputs.historyPath, setup.outputs.camera) = (base.outputs.historyPath, CameraName(camera.name))
        // The one rule for clips: a camera's are in its own folder (DIR/NAME/clips), wherever the
        // history is (a --history FILE of all the cameras gathers no camera's clips beside it).
        setup.outputs.clips?.folder = (setup.watch.recordDir as NSString).appendingPathComponent("clips")
        setup.watch.settingsReader = FileSettingsReader(flags: flags, started: mine, camera: camera)
        return CameraSetup(name: CameraName(camera.name), setup: setup, given: mine, entry: camera)
    }

    /// What a camera's settings have of their own place: its source, its folder and the event log.
    static func place(in given: [String: GivenSetting]) -> [String: GivenSetting] {
        given.filter { [SettingName.source.key, SettingName.record.key, SettingName.log.key].contains($0.key) }
    }
}

extension WatchConfig {
    /// The watch's folders of snapshots, frames and effects hold one a camera (a camera's own is its
    /// own): at the start and at each reload.
    mutating func placeFolders(of camera: CameraEntry) {
        let folders: [(SettingName, WritableKeyPath<WatchConfig, String?>)] = [
            (.snapshots, \.snapshotsDir), (.frames, \.framesDir), (.effects, \.effectsDir),
        ]
        for (name, path) in folders where camera.settings[name.key] == nil {
            self[keyPath: path] = self[keyPath: path].map { ($0 as NSString).appendingPathComponent(camera.name) }
        }
    }
}

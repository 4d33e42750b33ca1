import Foundation
import LookCore
import Rules

/// What `lookd watch` was given, read into its cameras: the rules (a file or inline) with the file's
/// `settings:` under the flags, and each camera's settings in force. The start reads it once; a
/// reload reads it again, so a camera added to, removed from or changed in the file's `cameras:`
/// is added, stopped or reopened (cameras given by `--camera` stay as the flags say).
public struct CameraPlan: Sendable {
    public let spec: String
    public let flags: [String: GivenSetting]

    public init(spec: String, flags: [String: GivenSetting]) { (self.spec, self.flags) = (spec, flags) }

    /// The cameras and the rules, as read.
    public struct Read {
        public let cameras: [CameraSetup]
        public let rules: RuleSet
        public let source: String
    }

    /// Why it cannot be read: the rules (with their place) or a setting.
    public enum Problem: Error {
        case rules(RulesError)
        case setting(SettingProblem)
    }

    /// Reads the rules and the cameras; a rule naming a camera there is none of, or a camera no
    /// rule is asked on, is a problem of the rules.
    public func read() throws(Problem) -> Read {
        let set: RuleSet, source: String
        do { (set, source) = try RuleSpec.load(spec) } catch { throw .rules(error) }
        return Read(cameras: try cameras(of: set, source: source), rules: set, source: source)
    }

    /// The cameras of rules already read (`lookd check` reads them once): each with its settings in
    /// force, checked for what they need with its own source.
    public func cameras(of set: RuleSet, source: String) throws(Problem) -> [CameraSetup] {
        let cameras: [CameraSetup]
        do throws(SettingProblem) {
            let given = try WatchSettings.given(flags: flags, file: set.settings, needs: false)
            cameras = try CameraSetup.cameras(given, flags: flags, file: set.cameras)
        } catch {
            throw .setting(error)
        }
        // A camera's URL is shown as an outbound URL is, wherever it is written (unless show_url: true).
        for camera in cameras {
            if let entry = camera.entry { entry.maskSource() } else { Secrets.registerOutbound(camera.setup.watch.source) }
        }
        do throws(RulesError) {
            if cameras[0].name.isNamed {
                try set.checkCameras(cameras.map(\.name.name), source: source)
            } else {
                try set.checkNoCameras(source: source)
            }
        } catch {
            throw .rules(error)
        }
        return cameras
    }

    /// Whether `set` and the flags name cameras (each camera's settings are then checked with its own source).
    public func namesCameras(_ set: RuleSet) -> Bool { flags[SettingName.camera.key] != nil || !set.cameras.isEmpty }

    /// Whether a reload may change the cameras: they come from a rules file (not `--camera`), which
    /// is a regular file (a pipe, `--rules <(…)`, is read once).
    public var reloadsCameras: Bool {
        var st = stat()
        return flags[SettingName.camera.key] == nil && stat(spec, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }
}

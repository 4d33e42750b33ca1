import Foundation
import LookCore
import Rules

extension RulesCheck {
    /// Each camera's settings in force that are its own: those whose value or origin differ from the
    /// watch's (its source, its folder, and what its entry in `cameras:` sets).
    func own(_ camera: CameraSetup) -> [SettingInForce] {
        let watch = Dictionary(settings.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        let inForce = WatchSettings.declared.inForce(camera.setup, given: camera.given)
        return inForce.filter { $0.name != SettingName.camera.key && watch[$0.name] != $0 }
    }

    /// The rules a camera asks, by their numbers in the file.
    func numbers(_ camera: CameraSetup) -> [Int] {
        set.rules.indices.filter { set.rules[$0].isAsked(on: camera.name) }.map { $0 + 1 }
    }

    /// `lookd check`'s lines for the cameras: each with the rules it asks and its own settings.
    var cameraLines: [String] {
        guard !cameras.isEmpty else { return [] }
        var lines = ["\nCameras (one model; each asks only its rules, and keeps its records in its own folder):"]
        for camera in cameras {
            let rules = numbers(camera).map(String.init).joined(separator: ", ")
            lines.append("  \(camera.name): asks rules \(rules)")
            lines += SettingsShown.lines(own(camera)).map { "  " + $0 }
        }
        return lines
    }

    /// A file or folder a source names (the one source's, or a camera's) that is not there: a typo
    /// the watch would find only when it starts. A camera device or a stream may come later, and is
    /// not looked for.
    public var missingSource: String? {
        let sources = cameras.isEmpty ? [(CameraName.only, source)] : cameras.map { ($0.name, $0.setup.watch.source) }
        for case (let name, let spec?) in sources
        where !spec.hasPrefix("/dev/") && !spec.contains("://") && !FileManager.default.fileExists(atPath: spec) {
            return "\(name.isNamed ? "the camera \(name)'s source" : "the source") \(spec) does not exist"
        }
        return nil
    }

    /// `lookd check --json`'s `cameras`: each camera's name, rules (numbers) and own settings.
    var camerasJSON: JSON {
        .array(
            cameras.map { camera in
                .object([
                    ("name", .optional(camera.name.written)), ("rules", .ints(numbers(camera))), ("settings", SettingsShown.json(own(camera))),
                    ("prompt", .string(WatchPrompt.text(for: set.forCamera(camera.name).rules))),
                ])
            })
    }
}

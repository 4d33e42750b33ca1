import Foundation
import LookCore
import Platform
import Rules

/// `lookd eval` over a rules file of several cameras: it scores one camera at a time (its clip, its
/// rules) against that camera's truth.
public enum EvalCamera {
    /// Takes eval's own `--camera NAME` (no source) out of `words`; `--camera NAME=SOURCE` is the watch's.
    public static func take(_ words: inout [String]) -> String? {
        guard let i = words.firstIndex(of: "\(SettingName.camera)"), i + 1 < words.count, !words[i + 1].contains("=") else { return nil }
        defer { words.removeSubrange(i...(i + 1)) }
        return words[i + 1]
    }

    /// The camera eval scores (`--camera NAME`, one of the file's) and the watch's words that watch
    /// it alone; `CameraName.only` and no words when the file has no cameras or the user gave a
    /// source of their own.
    public static func pick(_ spec: String?, named name: String?, sourceGiven: Bool) throws(SettingProblem) -> (camera: CameraName, words: [String]) {
        guard let spec, !sourceGiven, let set = try? RuleSpec.load(spec).rules, !set.cameras.isEmpty else {
            if let name { throw SettingProblem("eval \(SettingName.camera) \(name) picks a camera of the rules file's cameras:, and it has none") }
            return (.only, [])
        }
        let names = set.cameras.map(\.name).joined(separator: ", ")
        guard let name else {
            throw SettingProblem(
                "the rules file has cameras (\(names)): eval scores one against its truth: give \(SettingName.camera) NAME (or \(SettingName.source) CLIP)"
            )
        }
        guard let entry = set.cameras.first(where: { $0.name == name }) else {
            throw SettingProblem("the rules file has no camera \(name) (its cameras: \(names))")
        }
        // A relative source in the file is the file's folder's, as the watch reads it.
        let folder = FilePath.folder(of: spec)
        let source =
            entry.source.hasPrefix("/") || entry.source.contains("://") || folder.isEmpty
            ? entry.source : (folder as NSString).appendingPathComponent(entry.source)
        return (CameraName(name), ["\(SettingName.camera)", "\(name)=\(source)"])
    }
}

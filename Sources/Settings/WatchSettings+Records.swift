import Capture
import Config
import Foundation
import Grounding
import LookCore
import Media
import Outputs
import ReactionDomain
import Rules

/// The watch's settings of what a run writes and keeps: its records, the status, the state, the
/// history, its clips and how long it keeps them.
extension WatchSettings {
    /// What the run writes.
    static func records(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            Setting(
                .record, "DIR", group: group, help: "where watch-run-<epoch>.json goes", defaultWords: "the current folder",
                show: { $0.watch.recordDir }, apply: { setup, text in setup.watch.recordDir = text }),
            .text(
                .log, \.watch.logPath, "FILE", group: group, help: "the JSON Lines event log, appended", defaultWords: "DIR/lookd-events.jsonl"),
            .text(.frames, \.watch.framesDir, "DIR", group: group, help: "write each frame the model got as PNG"),
            .text(
                .snapshots, \.watch.snapshotsDir, "DIR", group: group,
                help: "each fire's frame as JPEG at the source's size (fire-<epoch>-<n>.jpg)"),
            Setting(
                .keepSnapshots, "N|AGE", group: group,
                help: "how many snapshots stay (a count) or for how long (an age of at least 1m: 30m, 12h, 7d)",
                needs: SettingNeed(.snapshots), show: { $0.watch.keepSnapshots },
                apply: { (setup, text) throws(SettingProblem) in
                    guard Snapshots.Retention.parse(text) != nil else {
                        throw SettingProblem("is a count (500) or an age from 1m to 100 years (30m, 12h, 7d)")
                    }
                    setup.watch.keepSnapshots = text
                }),
            .text(
                .status, \.outputs.statusPath, "FILE", group: group, help: "where the status file for lookd status goes",
                defaultWords: "$RUNTIME_DIRECTORY, else $XDG_RUNTIME_DIR/lookd, else /tmp/lookd-<uid>; status.json"),
            .text(
                .state, \.state, "FILE|off", group: group,
                help: "where rules switched off from Home Assistant and counts are kept across restarts",
                defaultWords: "DIR/lookd-state.json for a camera, a stream or a service; off for a file"),
            .text(
                .history, \.history, "FILE|off", group: group,
                help: "the history of fires (SQLite; lookd history lists it)", defaultWords: "DIR/lookd-history.sqlite"),
        ]
        let truth: Setting<WatchSetup> =
            .text(
                .truth, \.truth, "FILE|\"photo:yes,no,…;…\"", group: group,
                help: "what each photo shows, rule by rule (the record scores the answers), or a truth file (lookd eval --help): "
                    + "its photos scored so, its spans drawn on the page")
        return settings + keeping(group) + [truth]
    }

    /// What the run keeps of its fires: clips, and how long the history keeps them.
    private static func keeping(_ group: String) -> [Setting<WatchSetup>] {
        [
            .onOff(
                .clips, \.clips, group: group,
                help:
                    "write a clip of each fire (MP4, H.264): \(SettingName.preRoll) seconds before its frame and \(SettingName.postRoll) after, in the "
                    + "history's folder, clips/ (a camera of several: its own folder's, DIR/NAME/clips/; clip: false on a rule: none of its fires)",
                defaultWords: "on for the service, off otherwise"),
            .number(.preRoll, \.preRoll, in: 0...60, group: group, help: "seconds of a clip before the fire's frame"),
            .number(.postRoll, \.postRoll, in: 0...60, group: group, help: "seconds of a clip after the fire's frame"),
            .integer(
                .clipMemory, \.clipMemory, in: 8...4096, unit: "MIB", group: group,
                help: "MiB a camera's or a stream's last seconds may take for clips (a camera's pictures are thinned to fit)"),
            .number(
                .keepDays, \.keepDays, in: 0.001...36500, unit: "D", group: group,
                help: "days the history keeps a fire; older ones go, with their snapshots and clips"),
            Setting(
                .keepSize, "SIZE", group: group, help: "what the clips may take on the disk (500M, 2G); the oldest go first, with their fires",
                show: { Quantity.bytes($0.keepSize) },
                apply: { (setup, text) throws(SettingProblem) in
                    guard let bytes = Quantity.parseBytes(text), bytes >= 1000 else {
                        throw SettingProblem("is a size (500M, 2G, 1.5GB), not \"\(text)\"")
                    }
                    setup.keepSize = bytes
                }),
        ]
    }
}

import Capture
import Config
import Foundation
import Grounding
import LookCore
import Media
import Outputs
import ReactionDomain
import Rules

/// Everything a watch runs with: the watch's own settings, its outputs', its model's, and the few
/// that the command line turns into those (the token, the truth, the state file).
public struct WatchSetup {
    public var watch = WatchConfig(source: "", rules: "")
    public var outputs = OutputSettings(name: WatchConfig.defaultName)
    public var model = ModelSettings()
    public var every = 1.0
    public var truth: String?
    public var state: String?
    public var history: String?
    /// `--clips`: nil, on for the service only; the seconds before and after a fire; the feed's memory (MiB).
    public var clips: Bool?
    public var preRoll = 5.0
    public var postRoll = 5.0
    public var clipMemory = 64
    /// The cameras `--camera` gives (a watch of several; `CameraSetup.cameras`).
    public var cameras: [CameraEntry] = []
    /// `--keep-days` and `--keep-size` (bytes): the history's and the clips' limits.
    public var keepDays = 30.0
    public var keepSize: Int64 = 2_000_000_000
    public var httpToken: String?
    public var httpTokenFile: String?

    public init() {}
}

/// `lookd watch`'s settings, each declared once: the flags, the rules file's `settings:`, `--help`
/// and `lookd check` come from these declarations.
public enum WatchSettings {
    public static let groups = [
        "Source", "Rules and answers", ModelSettings.group, "Effects (effect: ripple|zoom|spotlight)",
        "Change gate (on for cameras, streams and real-time video; off for \(SettingName.pace) frames and photos)",
        "Fires that leave the machine (run:, post:, MQTT)", "The page (read-only; docs/page.md)", "Run", "Records", "Service",
    ]

    public static var declared: SettingList<WatchSetup> {
        let model: [Setting<WatchSetup>] = ModelSettings.declared.settings.map { $0.lifted(\.model) }
        let parts: [[Setting<WatchSetup>]] = [
            source(groups[0]), rules(groups[1]), model, effects(groups[3]), gate(groups[4]), outside(groups[5]), mqtt(groups[5]),
            page(groups[6]), run(groups[7]), records(groups[8]), service(groups[9]),
        ]
        return SettingList(parts.flatMap { $0 })
    }

    /// Source settings: the camera, video, stream or photos.
    private static func source(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            Setting(
                .source, "/dev/video0|FILE|URL|DIR", group: group,
                help: "a V4L2 camera (its newest picture each frame; one that goes away is reopened with backoff), a video FILE "
                    + "(played in real time, or \(SettingName.pace) frames), a stream URL libavformat opens (rtsp://, http://, udp://: the newest "
                    + "frame), or a folder DIR of photos (each shown \(SettingName.photoSeconds), round and round)",
                show: { $0.watch.source.isEmpty ? nil : $0.watch.source }, apply: { setup, text in setup.watch.source = text }),
            Setting(
                .camera, "NAME=SOURCE", group: group,
                help: "one camera of several watched with one model, given once a camera (or settings: cameras: in the rules file): "
                    + "the model goes to the camera whose picture changed; a rule's cameras: names where it is asked; "
                    + "each camera's records go to DIR/NAME (docs/cameras.md)",
                show: { $0.cameras.isEmpty ? nil : $0.cameras.map { "\($0.name)=\($0.source)" }.joined(separator: " ") },
                apply: { (setup, text) throws(SettingProblem) in
                    setup.cameras = try text.split(separator: "\n").map { line throws(SettingProblem) in try CameraEntry.flag(String(line)).get() }
                }),
            Setting(
                .pace, "realtime|frames", group: group, help: "frames: step through a video \(SettingName.every) S seconds of video time",
                needs: SourceKinds.video,
                show: { if case .frames = $0.watch.sourceOptions.pace { "frames" } else { "realtime" } },
                apply: { (setup, text) throws(SettingProblem) in
                    switch text {
                    case "realtime": setup.watch.sourceOptions.pace = .realtime
                    case "frames": setup.watch.sourceOptions.pace = .frames(every: setup.every)
                    default: throw SettingProblem("is realtime or frames, not \"\(text)\"")
                    }
                }),
            .number(
                .every, \.every, in: 0.001...3600, group: group, help: "the step of \(SettingName.pace) frames", needs: SettingNeed(.pace, "frames")),
            .number(
                .photoSeconds, \.watch.sourceOptions.photoSeconds, in: 0...86400, group: group,
                help: "seconds each photo of a folder stays on (0: the next photo every frame)", needs: SourceKinds.photos),
            .integer(
                .cameraSize, \.watch.sourceOptions.cameraMaxSide, in: 32...8192, group: group,
                help: "the largest picture asked of a camera, long side", needs: SourceKinds.camera),
            .integer(.size, \.watch.sourceOptions.maxSide, in: 32...4096, group: group, help: "the long side of the frames the model gets"),
        ]
        return settings
    }

    /// The rules and how their answers are asked.
    private static func rules(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            Setting(
                .rules, "FILE|\"a=b|…\"", group: group,
                help: "a rules file (YAML; rules.example.yaml, lookd check), or rules inline: condition=reaction|condition=reaction…, "
                    + "a reaction one of: \(ReactionKinds.inlineForms)",
                show: { $0.watch.rulesSpec.isEmpty ? nil : $0.watch.rulesSpec }, apply: { setup, text in setup.watch.rulesSpec = text }),
            .onOff(
                .constrain, \.watch.constrain, group: group,
                help:
                    "answers only as \"1. Yes|No\" lines, each with its confidence (the scripted engine and \(SettingName.cells) batch answer in free text)",
                reload: true),
            .integer(
                .tokens, \.watch.maxTokens, in: 1...16384, group: group, help: "the most answer tokens per frame", reload: true,
                defaultWords: "4 a rule and 8 more, at least 32"),
            .number(
                .cooldown, \.watch.cooldown, in: 0...3600, group: group,
                help: "seconds after a fire in which the rule does not fire again (a rule's cooldown: overrides it)", reload: true),
            .toggle(
                .describe, \.watch.describeAll, group: group,
                help: "one sentence about each fire's frame, after the fire (as a rule's describe: does)", reload: true),
            .integer(
                .describeTokens, \.watch.describeTokens, in: 4...512, group: group,
                help: "a description's most answer tokens; say: \"{description}\" speaks it", reload: true),
            .number(
                .describeTimeout, \.watch.posts.descriptionWait, in: 0.1...600, group: group,
                help: "how long a post's or command's wait: description waits for it"),
        ]
        return settings
    }

    /// Effects: where their edit plays and how long.
    private static func effects(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            .number(
                .hold, \.watch.hold, in: 0...60, group: group,
                help: "seconds an effect holds the frame the model answered; the loop takes no frame meanwhile and a video stands still", reload: true
            ),
            .choice(
                .cells, \.watch.cells, group: group,
                help: "where the edit plays: box asks the model for the thing's box; ask for one of nine cells; batch asks the cell "
                    + "inside the yes/no prompt; none plays it on the whole frame", reload: true),
            .toggle(
                .cellWords, \.watch.cellWords, group: group, help: "the place as two words (left/center/right, top/middle/bottom)",
                needs: SettingNeed(.cells, "ask"), reload: true),
            .toggle(.grid, \.watch.grid, group: group, help: "draw the nine numbered cells on the frame the model gets", reload: true),
            .text(
                .effects, \.watch.effectsDir, "DIR", group: group,
                help: "where each effect's catch<n>.png (2.5 s into the hold) and edit<n>.apng go",
                defaultWords: "\(SettingName.frames) DIR, else watch-<epoch>-effects/ in the record folder"),
            .toggle(
                .noSound, \.watch.sound, inverted: true, group: group,
                help: "perform no sound, spoken line or timer sound (they are recorded as turned off, not as failures)"),
        ]
        return settings
    }

    /// The change gate.
    private static func gate(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            .onOff(
                .gate, \.watch.gateMode, group: group, help: "ask the model only when the picture changed since the last answered frame",
                defaultWords: "on for cameras, streams and real-time video; off for \(SettingName.pace) frames and photos"),
            .number(
                .gateThreshold, \.watch.gate.threshold, in: 0.0001...1, unit: "F", group: group,
                help: "the share of the picture that must change", reload: true),
            .number(
                .gateFps, \.watch.gate.fps, in: 0.1...30, unit: "N", group: group, help: "frames taken a second while skipping", reload: true),
            .number(.gateMax, \.watch.gate.maxSeconds, in: 1...86400, group: group, help: "ask at least this often, changed or not", reload: true),
            .onOff(
                .reuse, \.watch.reuseOn, group: group,
                help: "the vision tower computes again only what changed in a camera's picture since its last answer (off: each picture whole)",
                reload: true),
            .number(
                .reuseThreshold, \.watch.reuse.threshold, in: 0...2, unit: "F", group: group,
                help: "a patch whose pixels moved by more than this (mean, in the model's units: 0.04 is about 5/255) is computed again", reload: true
            ),
            .number(
                .reuseBound, \.watch.reuse.bound, in: 0...1, unit: "F", group: group,
                help: "the picture is encoded whole when more than this share of it changed", reload: true),
            .integer(
                .reuseRefresh, \.watch.reuse.refresh, in: 1...10000, group: group, help: "the picture is encoded whole at least every N answers",
                reload: true),
            Setting(
                .gateMask, "\"l,t,r,b;…\"", group: group,
                help: "regions the gate ignores, fractions of the picture (also gate: mask: in the file)", reload: true,
                show: { $0.watch.gate.masks.isEmpty ? nil : $0.watch.gate.masks.map(\.words).joined(separator: ";") },
                apply: { (setup, text) throws(SettingProblem) in
                    do throws(RulesError) { setup.watch.gate.masks = try GateMask.parse(inline: text) } catch { throw SettingProblem(error.problem) }
                }),
        ]
        return settings
    }

    /// Commands and posts.
    private static func outside(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            .number(
                .runTimeout, \.watch.commands.timeLimit, in: 0.1...86400, group: group,
                help: "a run: command is killed (with what it started) after S seconds; 4 run at once, 16 more wait, the rest are dropped and counted"
            ),
            .number(
                .postTimeout, \.watch.posts.timeLimit, in: 0.1...600, group: group,
                help: "each try of a post: has S seconds; 3 tries, 1 s and 2 s apart"),
        ]
        return settings
    }

    /// When the run starts and ends.
    private static func run(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            .number(.seconds, \.watch.seconds, in: 0.001...1e9, group: group, help: "watch this long (the frame being answered is finished)"),
            .number(.delay, \.watch.delay, in: 0...86400, group: group, help: "wait this long before the first frame"),
            .text(.trigger, \.watch.trigger, "FILE", group: group, help: "wait until FILE exists before the first frame"),
        ]
        return settings
    }

    /// The service.
    private static func service(_ group: String) -> [Setting<WatchSetup>] {
        let settings: [Setting<WatchSetup>] = [
            .toggle(.watchRules, \.watch.watchRules, group: group, help: "also re-read the rules when the file changes (as on SIGHUP)")
        ]
        return settings
    }
}

/// The kinds of source a setting may go with (a `--pace` needs a video file to step through).
enum SourceKinds {
    static let camera = SettingNeed(.source, words: "\(SettingName.source) /dev/videoN (a camera)") { $0.hasPrefix("/dev/") }
    static let photos = SettingNeed(.source, words: "\(SettingName.source) DIR (a folder of photos)", accepts: isFolder)
    static let video = SettingNeed(.source, words: "\(SettingName.source) FILE (a video file)") {
        !SourceOpener.isLive($0) && !isFolder($0)
    }

    @Sendable static func isFolder(_ spec: String) -> Bool {
        var folder: ObjCBool = false
        return FileManager.default.fileExists(atPath: spec, isDirectory: &folder) && folder.boolValue
    }
}

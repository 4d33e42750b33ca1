import Capture
import Config
import Foundation
import Gate
import LookCore
import Outputs
import Records
import Rules
import Settings
import VLM
import Watch

/// One camera of a watch: its settings in force, its rules, its outputs and its run (records and
/// loop), with its own reload requests.
final class CameraRun: @unchecked Sendable {
    let camera: CameraSetup
    let rules: RuleSet
    let watchRun: WatchRun
    let reloads = ReloadRequest()

    /// The camera's run with its records opened and its outputs made (the terminal's line, then the
    /// service, MQTT and the page: `OutputSettings.outputs`).
    init(_ camera: CameraSetup, rules: RuleSet, version: String, notifier: SystemdNotifier, clock: any Clock) throws(WatchError) {
        let setup = camera.setup
        var config = setup.watch
        var outputSettings = setup.outputs
        let clipFeed = setup.outputs.clips?.makeFeed() // the one live object the settings call for, made once
        (config.sourceOptions.clips, outputSettings.clipFeed, outputSettings.version) = (clipFeed, clipFeed, version)
        config.settingsInForce = SettingsShown.json(WatchSettings.declared.inForce(setup, given: camera.given))
        config.takeSnapshots(for: rules.rules)
        let outputs: [any WatchOutput] =
            [TerminalLine(isTerminal: Terminal.stderrIsTTY)]
            + outputSettings.outputs(
                source: config.source, eventsPath: config.eventLogPath, snapshotsDir: config.snapshotsDir, notifier: notifier, clock: clock)
        (self.camera, self.rules) = (camera, rules)
        watchRun = try WatchRun(config: config, version: version, outputs: outputs, clock: clock)
    }

    /// Opens the camera's source.
    func open(clock: any Clock, awaitLive: Bool) throws(CaptureError) -> any FrameSource {
        try SourceOpener.open(watchRun.config.source, options: watchRun.config.sourceOptions, clock: clock, awaitLive: awaitLive)
    }

    /// Watches `source` until it ends or the stop.
    func watch(
        source: any FrameSource, model: any VisionLanguageModel, rulesSource: String, stop: StopSignal, turns: ModelTurns?
    ) -> HouseWatch.Ended {
        let result = Result { () throws(WatchError) in
            try watchRun.watch(source: source, model: model, rules: rules, rulesSource: rulesSource, stop: stop, reloads: reloads, turns: turns)
        }
        return HouseWatch.Ended(camera: camera.name, result: result)
    }

    /// Runs `body` for each camera, on a thread of its own when there are several (the first on the
    /// calling thread); returns what each returned, in order, when all have.
    static func all<T>(_ items: [(CameraRun, any FrameSource)], _ body: @escaping (CameraRun, any FrameSource) -> T) -> [T] {
        let results = Results(items: items, body: body)
        let group = DispatchGroup()
        for (i, item) in items.enumerated().dropFirst() {
            group.enter()
            let thread = Thread {
                results.run(i)
                group.leave()
            }
            thread.stackSize = 8 << 20
            thread.name = "lookd-\(item.0.camera.name ?? "main")"
            thread.start()
        }
        results.run(0)
        group.wait()
        return results.all
    }
}

/// Each camera's work and what it returned, each thread into its own place (a camera's source
/// and loop are used by its thread only).
private final class Results<T>: @unchecked Sendable {
    private let lock = NSLock()
    private let items: [(CameraRun, any FrameSource)]
    private let body: (CameraRun, any FrameSource) -> T
    private var values: [T?]

    init(items: [(CameraRun, any FrameSource)], body: @escaping (CameraRun, any FrameSource) -> T) {
        (self.items, self.body, values) = (items, body, Array(repeating: nil, count: items.count))
    }

    func run(_ i: Int) {
        let before = Log.camera
        Log.camera = items[i].0.camera.name
        defer { Log.camera = before }
        let value = body(items[i].0, items[i].1)
        lock.withLock { values[i] = value }
    }

    var all: [T] { lock.withLock { values.map { $0! } } }
}

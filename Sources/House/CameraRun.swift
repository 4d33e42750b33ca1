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
/// loop), with its own reload requests and its own stop (a reload may stop one camera).
final class CameraRun: @unchecked Sendable {
    let camera: CameraSetup
    let rules: RuleSet
    let watchRun: WatchRun
    let reloads = ReloadRequest()
    let stop: StopSignal

    /// The camera's run with its records opened and its outputs made (the terminal's line, then the
    /// service, MQTT and the page: `OutputSettings.outputs`; its page a part of `page`, when there is one).
    init(
        _ camera: CameraSetup, rules: RuleSet, version: String, notifier: any ServiceNotifier, page: WebHouse?, clock: any Clock
    ) throws(WatchError) {
        let setup = camera.setup
        var config = setup.watch
        var outputSettings = setup.outputs
        let clipFeed = setup.outputs.clips?.makeFeed() // the one live object the settings call for, made once
        (config.sourceOptions.clips, outputSettings.clipFeed, outputSettings.version, outputSettings.page) = (clipFeed, clipFeed, version, page)
        config.settingsInForce = SettingsShown.json(WatchSettings.declared.inForce(setup, given: camera.given))
        config.takeSnapshots(for: rules.rules)
        let outputs: [any WatchOutput] =
            [TerminalLine(isTerminal: Terminal.stderrIsTTY, camera: camera.name)]
            + outputSettings.outputs(
                source: config.source, eventsPath: config.eventLogPath, snapshotsDir: config.snapshotsDir, notifier: notifier, clock: clock)
        (self.camera, self.rules, stop) = (camera, rules, StopSignal(clock: clock))
        watchRun = try WatchRun(config: config, version: version, outputs: outputs, clock: clock)
    }

    /// Opens the camera's source.
    func open(clock: any Clock, awaitLive: Bool) throws(CaptureError) -> any FrameSource {
        try SourceOpener.open(watchRun.config.source, options: watchRun.config.sourceOptions, clock: clock, awaitLive: awaitLive)
    }

    /// Its name among the cameras (`CameraName.only`'s for one source).
    var name: String { camera.name.name }

    /// Watches `source` until it ends or its stop.
    func watch(source: any FrameSource, model: any VisionLanguageModel, rulesSource: String, turns: ModelTurns?) -> HouseWatch.Ended {
        let result = Result { () throws(WatchError) in
            try watchRun.watch(source: source, model: model, rules: rules, rulesSource: rulesSource, stop: stop, reloads: reloads, turns: turns)
        }
        return HouseWatch.Ended(camera: camera.name, result: result)
    }
}

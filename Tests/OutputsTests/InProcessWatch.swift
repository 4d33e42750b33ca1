import Config
import Foundation
import LookCore
import Outputs
import Records
import Settings
import TestSupport
import VLM
import Watch

/// A whole watch in-process: the real composition root (`WatchRun`) with the scripted model on a
/// scripted source (a frame a second of a manual clock), and the outputs under test.
struct InProcessWatch {
    let dir: URL
    var config: WatchConfig
    /// A manual clock unless given (a run whose waits must be real: a command's, say).
    let clock: any Clock

    init(rules: String, in dir: URL, clock: any Clock = ManualClock()) {
        self.dir = dir
        self.clock = clock
        config = WatchConfig(source: "test frames", rules: rules)
        config.recordDir = dir.path
        config.sound = false
        config.cooldown = 0
    }

    /// A watch of the rules file `yaml`, written as `rules.yaml` in a fresh scratch folder.
    init(yaml: String, clock: any Clock = ManualClock(), _ name: String = #function) throws {
        let dir = try Fixtures.scratch(name)
        let path = dir.appendingPathComponent("rules.yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        self.init(rules: path, in: dir, clock: clock)
    }

    var log: String { config.eventLogPath }
    var events: [[String: Any]] { (try? EventLogFile.read(log)) ?? [] }

    /// Runs `frames` frames answered by `answers` (one line each, `\n` between rules) through `outputs`.
    func run(answers: [String], frames: Int, outputs: [any WatchOutput], stop: StopSignal = StopSignal(clock: MonotonicClock())) throws
        -> WatchEnding
    {
        try run(
            engine: try ScriptedModel(path: try Fixtures.script(answers, in: dir), clock: MonotonicClock()), frames: frames, outputs: outputs,
            stop: stop)
    }

    /// Runs `frames` frames asked of `engine` through `outputs`.
    func run(engine model: any VisionLanguageModel, frames: Int, outputs: [any WatchOutput], stop: StopSignal = StopSignal(clock: MonotonicClock()))
        throws
        -> WatchEnding
    {
        let run = try WatchRun(config: config, version: "lookd test", outputs: outputs, clock: clock)
        run.modelReady(model)
        let (rules, source) = try config.loadRules()
        return try run.watch(
            source: ScriptedSource(count: frames, clock: clock, step: 1), model: model, rules: rules, rulesSource: source, stop: stop,
            reloads: ReloadRequest())
    }
}

/// An output that calls `body` after each complete frame, on the loop's thread (to look at another
/// output mid-run, or to stop the run).
final class OnFrame: WatchOutput, @unchecked Sendable {
    let name = "test"
    private let body: (SeenFrame) -> Void
    private var joiner = FrameJoiner()
    init(_ body: @escaping (SeenFrame) -> Void) { self.body = body }
    func receive(_ event: WatchEvent) { if let frame = joiner.seen(event) { body(frame) } }
}

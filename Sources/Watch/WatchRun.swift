import Capture
import Config
import Foundation
import Gate
import LookCore
import Platform
import Reactions
import Records
import Rules
import VLM

/// One watch from start to end, the composition root: it opens the records, takes the model and
/// the source the command line loaded and the outputs it chose, starts its parts in order (the
/// recorder, the state keeper, a live source, the outputs, the reactor: `Lifecycle`), runs the
/// loop, and at the end stops them in reverse (the reactor lets what is under way finish, the
/// outputs send what is left, the recorder writes the run record last). Everything that happens
/// goes out as one stream of typed events, to the recorder first and then to each output.
public final class WatchRun {
    public let config: WatchConfig
    let recorder: EventRecorder
    let stream: EventStream
    let clock: any Clock
    private let outputs: [any WatchOutput]
    /// Its parts in one list: the order they start in and the order events reach them.
    private let parts: RunParts
    /// Carries out the rules' reactions; it hears of clips for what waits for one.
    private let reactor: Reactor
    /// The switches and counts kept from an earlier run (`statePath`), and the commands from outside.
    private let kept: KeptState
    private let commands = RuleCommands()
    private let started: Double
    private let epoch: Int
    /// The run record's path, claimed at the start (`watch-run-<epoch>.json`, or `-2` … when a run
    /// started in the same second has that name).
    private let recordPath: String
    /// What the run made before it watches (its state's lock, held for the run, among them).
    public let leftovers: RunLeftovers
    private let version: String

    /// Makes the record folders and opens the event log, with its `start` line. `outputs` are
    /// started, in order, when the watch begins.
    public init(
        config: WatchConfig, version: String, outputs: [any WatchOutput] = [], clock: any Clock
    ) throws(WatchError) {
        let epoch = Int(clock.date().timeIntervalSince1970)
        (self.config, self.version, self.outputs, self.clock, self.epoch) = (config, version, outputs, clock, epoch)
        var made = try RunLeftovers(making: config.recordFolders)
        do throws(WatchError) {
            do throws(SafeFile.Failure) {
                recordPath = try SafeFile.claim(in: config.recordDir, stem: "watch-run-\(epoch)", ext: "json")
            } catch {
                throw .record("The run record \(error.description).")
            }
            made.record = recordPath
            do { recorder = EventRecorder(events: try EventLog(path: config.eventLogPath, camera: config.camera, clock: clock), clock: clock) } catch
            {
                throw .record(error.description)
            }
            made.log = recorder.events.madeFile ? recorder.events.path : nil
            do throws(StateLock.Held) {
                made.lock = try config.statePath.map { path throws(StateLock.Held) in try StateLock(state: path) }
            } catch {
                throw .record(error.description)
            }
        } catch {
            made.remove()
            throw error
        }
        leftovers = made
        let (kept, stateProblem) = config.statePath.map(KeptState.load) ?? (KeptState(), nil)
        self.kept = kept
        // The state keeper, when switches and counts are kept (a part of the run, as the outputs are).
        let keeper: [any WatchOutput] = config.statePath.map { [KeptStateWriter(path: $0, initial: kept)] } ?? []
        reactor = Reactor(
            audio: config.sound ? Audio(output: SoundOutput(clock: clock)) : nil, commands: config.commands, posts: config.posts, clock: clock)
        parts = RunParts(recorder: recorder, keeper: keeper, outputs: outputs, reactor: ReactorPart(reactor, clock: clock))
        stream = EventStream(parts.hearing)
        recorder.recordPath = recordPath
        started = clock.now()
        stream.emit(.started(version: version, pid: Int(getpid()), args: Secrets.masked(arguments: Array(CommandLine.arguments.dropFirst()))))
        if let stateProblem { stream.emit(.warning(stage: "state", message: stateProblem)) }
    }

    /// The event log (SIGUSR1 reopens it).
    public var events: EventLog { recorder.events }

    /// A stage before the watch failed (`model`, `source`): its error line; the run leaves nothing behind
    /// (but the event log, when other cameras watch on: `othersWatch`).
    public func failed(stage: String, message: String, othersWatch: Bool = false) {
        stream.emit(.failed(stage: stage, message: message))
        leftovers.remove(keepingLog: othersWatch)
    }

    /// The model is loaded.
    public func modelReady(_ model: any VisionLanguageModel) {
        stream.emit(.ready(engine: model.engineName, loadSeconds: clock.now() - started, threads: (model as? LlamaEngine)?.options.threads))
    }

    /// Watches `source` with `model` until it ends, `seconds` pass or `stop` is asked; writes the
    /// run record.
    public func watch(
        source: any FrameSource, model: any VisionLanguageModel, rules: RuleSet, rulesSource: String,
        stop: StopSignal, reloads: ReloadRequest, turns: ModelTurns? = nil
    ) throws(WatchError) -> WatchEnding {
        // A reader that goes away (`lookd watch | head`) ends the run as a stop does, records written.
        for stream in [StandardStream.output, StandardStream.error] {
            stream.onClosed { reason in stop.request("\(stream.name) closed (\(reason))") }
        }
        let info = source.info
        let inForce = try rulesInForce(rules, source: rulesSource, model: model, info: info)
        let record = RunRecord(epoch: epoch, rules: rules.rules, window: RunRecord.window(for: info))
        record.header = RunHeader(config: config, version: version, epoch: epoch, eventLog: events.path).fields(
            model: model, source: info, rules: rules, rulesSource: rulesSource, gate: config.gateEnabled(for: info))
        recorder.record = record
        let live: [any RunPart] = (source as? any LiveSource).map { [LiveSourcePart($0, stopping: stop)] } ?? []
        let lifecycle = Lifecycle(parts.starting(live: live), clock: clock)
        stream.emit(.source(info))
        stream.emit(.rules(.loaded(rules.rules, source: rulesSource, warnings: rules.warnings, disabled: rules.disabled)))

        // The outputs start before any wait, so that MQTT is connected and discovered by the first frame.
        for case let output as any CommandingOutput in outputs { output.accept(commands: commands) }
        var failure: WatchError?
        if let (name, problem) = lifecycle.start(events: stream) {
            stream.emit(.failed(stage: name, message: problem.description))
            failure = .output(problem.description)
        }
        let conditions = Set(rules.rules.map(\.condition))
        for (condition, count) in kept.counts where conditions.contains(condition) { reactor.setCount(count, for: condition) }
        // The gate's `auto` is decided here, by the source.
        var config = self.config
        config.gate.enabled = config.gateEnabled(for: info)
        let loop = WatchLoop(
            source: source, model: model, rules: rules.rules, rulesSource: rulesSource, config: config, events: stream, epoch: epoch,
            reactor: reactor, stop: stop, reloads: reloads, commands: commands, turns: turns, clock: clock)
        loop.book.switches = RuleSwitches(off: kept.switchedOff.intersection(conditions), paused: kept.paused)
        loop.take(inForce)
        let reason: String
        if failure != nil {
            reason = "error"
        } else {
            (reason, failure) = run(loop, info: info, rules: rules, rulesSource: rulesSource, config: config, stop: stop)
        }
        record.gate = loop.gateCounts
        stream.emit(.stopping(reason: reason, loop.snapshot))
        lifecycle.stop()
        leftovers.lock?.release()
        let path: String
        switch recorder.written {
        case .success(let written): path = written
        case .failure(let error): throw .record("The run record \(error.description).")
        case nil: throw .record("The run record was not written.")
        }
        let closed = StandardStream.output.closed != nil || StandardStream.error.closed != nil
        return WatchEnding(reason: reason, frames: record.frameCount, fires: record.fireCount, record: path, failure: failure, outputClosed: closed)
    }

    /// The rules in force at the start, their warnings said; rules that cannot run fail the watch.
    private func rulesInForce(_ rules: RuleSet, source: String, model: any VisionLanguageModel, info: SourceInfo) throws(WatchError) -> RulesInForce {
        do throws(RulesError) {
            let inForce = try RulesInForce.make(rules, source: source, config: config, reread: false, model: model, info: info)
            for warning in inForce.warnings { Log.shared.warning(warning) }
            return inForce
        } catch {
            stream.emit(.failed(stage: "rules", message: error.problem))
            throw .rules(error.description)
        }
    }

    /// Runs the loop once every part started: its start waited for, the watch said, and how it
    /// ended (its failure, if it failed).
    private func run(
        _ loop: WatchLoop, info: SourceInfo, rules: RuleSet, rulesSource: String, config: WatchConfig, stop: StopSignal
    ) -> (String, WatchError?) {
        config.waitToStart(stop: stop, events: stream, clock: clock)
        if let audio = reactor.audio { stream.emit(.sounds(inBuild: audio.library.soundsInBuild)) }
        stream.emit(.watching(loop.snapshot))
        let notes = outputs.compactMap(\.note).map { "; \($0)" }.joined()
        Log.shared.notice("watching \(info.name) (\(info.kind)) with \(Quantity.count(rules.rules.count, "rule")) from \(rulesSource)\(notes)")
        Log.shared.notice(config.recordsLine(eventLog: events.path, record: recordPath))
        do {
            return (try loop.run(), nil)
        } catch {
            stream.emit(.failed(stage: "watch", message: error.description))
            return ("error", error)
        }
    }
}

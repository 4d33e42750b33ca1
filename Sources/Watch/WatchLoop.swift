import Capture
import Config
import Gate
import LookCore
import Reactions
import Records
import Rules
import VLM

/// The watch loop, a driver of stages: take a frame, let the gate judge it, ask the numbered
/// question, let the rules judge the answers, ask the places, record the frame, fire, describe; the
/// next frame is taken when the answer before it is in. Each stage owns its state; each frame's
/// `step` returns a typed `FrameOutcome`, and everything goes out as typed `WatchEvent`s.
public final class WatchLoop {
    let source: any FrameSource
    let parts: LoopParts
    let book: RuleBook
    let stages: WatchStages
    private(set) var config: WatchConfig
    private(set) var latest: (outcome: FrameOutcome, end: FrameEnd)?
    private(set) var runStart = 0.0

    public init(
        source: any FrameSource, model: any VisionLanguageModel, rules: [Rule], rulesSource: String = "inline", config: WatchConfig,
        events: any EventSink, epoch: Int, reactor: any ReactionPerformer, stop: StopSignal? = nil,
        reloads: ReloadRequest = ReloadRequest(), commands: RuleCommands = RuleCommands(), turns: ModelTurns? = nil, clock: any Clock
    ) {
        let stop = stop ?? StopSignal(clock: clock), turn = ModelTurn(shared: turns, camera: config.camera.name)
        let parts = LoopParts(model: model, reactor: reactor, events: events, clock: clock, stop: stop, turn: turn)
        (self.source, self.parts, self.config) = (source, parts, config)
        book = RuleBook(rules: rules, source: rulesSource, cooldown: config.cooldown, commands: commands)
        stages = WatchStages(parts: parts, source: source, config: config, epoch: epoch, reloads: reloads)
    }

    /// Runs until the source ends, `--seconds` pass, or a stop is requested. Returns why it stopped.
    public func run() throws(WatchError) -> String {
        let (clock, events, stop) = (parts.clock, parts.events, parts.stop)
        runStart = clock.now()
        if let seconds = config.seconds { stop.expire(after: seconds, on: clock) }
        var index = 0
        var failures = FailureStage(endsRun: parts.model.endsRunAfterFailures)
        while true {
            if let reason = stop.reason { return reason }
            reload()
            for outcome in book.takeCommands(reactor: parts.reactor) { events.emit(.command(outcome, snapshot)) }
            let t0 = clock.now()
            guard let frame = try next() else { return stop.reason ?? "end of source" }
            let grab = clock.now() - t0
            // Rules outside their schedule leave the prompt; with none in it, there is nothing to ask.
            let (active, woke) = book.active(at: clock.date())
            if woke { stages.gate.force(.schedule) }
            guard !active.isEmpty else { // nothing asked now (paused, or out of schedule): the kept tower results go
                (stages.ask.tower.drop(), parts.pause(1))
                continue
            }
            guard let gated = stages.gate.judge(frame, runT: clock.now() - runStart, clock: clock) else {
                events.emit(.skipped(snapshot))
                // While skipping, frames are taken --gate-fps a second (a stepped video takes its own steps).
                if case .realtime = config.sourceOptions.pace { parts.pause(t0 + 1 / stages.gate.fps - clock.now()) }
                continue
            }
            index += 1
            let answered: (outcome: FrameOutcome, end: FrameEnd, shown: RGBImage)
            do {
                // With cameras sharing the model, the frame waits for its camera's turn first; with the gate
                // on, a newer frame takes its place after a frame's time (--gate-fps), and keeps its place in line.
                let (bound, within) = (parts.model.longestWait * Double(2 + active.count) * parts.turn.sharing, stages.gate.turnWait)
                let inTurn = try parts.waiting(LoopWait("the model's answer", atMost: bound)) { () throws(WatchError) in
                    try parts.turn.during(changed: gated.asked != "max", within: within) { () throws(WatchError) in
                        try step(frame, index: index, grab: grab, active: active, gated: gated)
                    }
                }
                guard let inTurn else {
                    index -= 1 // not asked: its number goes to the frame that is
                    stages.gate.force(.turn)
                    continue
                }
                answered = inTurn
            } catch {
                guard case .model(_, let reason) = error else { throw error }
                stages.gate.force(.retry)
                let failure = FrameFailure(index: index, runT: clock.now() - runStart, stage: "model", reason: reason, inARow: failures.inARow + 1)
                events.emit(.frameFailed(failure, snapshot))
                let backoff = try failures.failed(frame: index, reason: reason)
                parts.waiting(LoopWait("the next try after a failed frame", atMost: backoff + 5)) { parts.pause(backoff) }
                continue
            }
            failures.answered(frame: index)
            latest = (answered.outcome, answered.end)
            events.emit(.frame(answered.end, shown: answered.shown, snapshot))
        }
    }

    /// One frame through the stages: the question, the rules' judgement, the places, the record,
    /// then the frame's line, its fires and their descriptions (as the seed's log has them).
    private func step(_ frame: Frame, index: Int, grab: Double, active: [Int], gated: FrameOutcome.Gated) throws(WatchError) -> (
        FrameOutcome, FrameEnd, RGBImage
    ) {
        let rules = book.rules
        let asked = try stages.ask.ask(frame, index: index, rules: rules, active: active, config: config)
        let judged = book.judge(asked.outcome, of: frame, pace: config.sourceOptions.pace, clock: parts.clock)
        let places = stages.place.places(
            fired: judged.fired, afterYes: asked.afterYes, rules: rules, shown: asked.shown, frame: index, config: config)
        let done = parts.clock.now() - frame.captured
        let written = stages.record.write(asked.shown.image, frame: frame, index: index, engine: parts.model.place, config: config)
        let outcome = FrameOutcome(
            index: index, frame: frame, runStart: runStart, grab: grab, gated: gated, asked: asked.outcome, judged: judged, places: places,
            done: done, place: written.place, truth: written.truth, png: written.png)
        parts.events.emit(.answered(outcome))
        let fired = judged.fired.map { i in
            stages.fire.fire(
                rule: i, of: rules, state: book.machine.states[i], frame: frame, index: index, shown: asked.shown.image, place: places[i],
                config: config)
        }
        let described = stages.describe.describe(fired.map(\.fire), rules: rules, shown: asked.shown, config: config)
        return (outcome, FrameEnd(index: index, fired: fired, described: described), asked.shown.image)
    }

    /// The source's next frame, nil at its end or on a stop; a source may go 300 s without a frame
    /// or a word of its own (a lost camera's events) before the watchdog takes the loop as stuck.
    private func next() throws(WatchError) -> Frame? {
        do {
            return try parts.waiting(LoopWait("a frame from the source", atMost: 300)) { () throws(CaptureError) in
                try source.next()
            }
        } catch {
            throw .source(error.description)
        }
    }

    /// Before a frame: a reload asked for (SIGHUP) or a changed file (`--watch-rules`).
    private func reload() {
        switch stages.reload.reloadIfAsked(book, config: config, info: source.info) {
        case nil: return
        case .accepted(let inForce):
            take(inForce)
            stages.gate.force(.reload)
            parts.events.emit(.reloaded(accepted: true, snapshot))
        case .rejected: parts.events.emit(.reloaded(accepted: false, snapshot))
        }
    }

    /// Takes the settings of the rules in force: live settings, the disabled rules, the gate's masks.
    func take(_ inForce: RulesInForce) {
        config = inForce.config
        book.take(cooldown: config.cooldown, disabled: inForce.disabled)
        stages.gate.take(config.gate, masks: inForce.gateMasks)
        parts.turn.gateMax(config.gate.maxSeconds)
    }
}

import Capture
import Foundation
import Gate
import Grounding
import LookCore
import Media
import Reactions
import Records
import Rules
import Settings
import VLM

/// The watch loop: take a frame, ask the numbered question, read the answers, fire what turned yes,
/// record it all; the next frame is taken when the answer before it is in. Each frame's `step`
/// returns a typed `FrameOutcome`, and everything the loop does goes out as typed `WatchEvent`s.
public final class WatchLoop {
    let source: any FrameSource
    let model: any VisionLanguageModel
    public private(set) var rules: [Rule]
    private(set) var machine: RuleMachine
    private(set) var config: WatchConfig
    /// Where every frame, fire, hold, skip, failure and reload goes (the outputs subscribe to it).
    let events: any EventSink
    /// The run's epoch, which names its snapshots and effects folder.
    let epoch: Int
    let reactor: any ReactionPerformer
    public let stop: StopSignal
    let clock: any Clock
    /// SIGHUP's request, which the loop takes before its next frame.
    public let reloads: ReloadRequest
    /// Commands from outside (Home Assistant's switches and buttons), taken before each frame.
    let commands: RuleCommands
    /// The rules switched off (by their words): not asked until switched on again.
    public internal(set) var switchedOff: Set<String> = []
    /// The rules written `enabled: false` (by their words), which only the file can turn on.
    var disabledRules: Set<String> = []
    /// The change gate and its counts; frames skipped since the last answer.
    var gate: ChangeGate
    public private(set) var gateCounts = GateCounts()
    private var skippedSince = 0
    /// The wall clock and calendar rules' schedules are read on (injected by tests).
    public var wallClock: () -> Date = Date.init
    public var calendar = Calendar.current
    private var wasActive: [Bool] = []
    /// `--snapshots`: where each fire's frame goes, and the latest written.
    var snapshots: Snapshots?
    var lastSnapshot: String?
    /// The picture the model got on the latest answered frame (with the grid when `--grid` is on).
    public private(set) var lastShown: RGBImage?
    /// Where the rules came from (a file's path, or `inline`).
    public private(set) var rulesSource: String
    private var rulesStamp: Date?
    private var latest: FrameOutcome?
    /// Fires and accepted reloads so far in the run.
    public private(set) var fireCount = 0
    var reloadCount = 0
    /// Each rule's latest description (by its words), and the descriptions skipped past the bound.
    var lastDescriptions: [String: String] = [:]
    var describeSkipped = 0
    /// `--frames` that cannot be written (a full disk): reported once, not once a frame.
    private var framesOutage = Outage()

    var runStart = 0.0

    public init(
        source: any FrameSource, model: any VisionLanguageModel, rules: [Rule], rulesSource: String = "inline", config: WatchConfig,
        events: any EventSink, epoch: Int, reactor: any ReactionPerformer, stop: StopSignal = StopSignal(),
        reloads: ReloadRequest = ReloadRequest(), commands: RuleCommands = RuleCommands(), clock: any Clock
    ) {
        self.source = source
        self.model = model
        self.rules = rules
        self.rulesSource = rulesSource
        self.machine = RuleMachine(settings: rules.map(\.settings), cooldown: config.cooldown)
        self.config = config
        self.events = events
        self.epoch = epoch
        self.reactor = reactor
        self.stop = stop
        self.reloads = reloads
        self.commands = commands
        self.clock = clock
        rulesStamp = Self.modified(config.rulesSpec)
        gate = ChangeGate(settings: config.gate)
        snapshots = config.snapshotsDir.map { Snapshots(dir: $0, keep: Snapshots.Retention.parse(config.keepSnapshots) ?? .count(1000)) }
    }

    /// Frames in a row whose model call may fail before the run ends with an error (so that systemd
    /// restarts lookd); between them the loop waits 1, 2, 4, 8 s.
    public static let failureLimit = 5

    /// Runs until the source ends, `seconds` pass, or a stop is requested. Returns why it stopped.
    /// A frame whose model call fails is recorded as failed and the run goes on, unless
    /// `failureLimit` frames in a row fail.
    public func run() throws(WatchError) -> String {
        runStart = clock.now()
        var index = 0
        var failures = 0
        while true {
            if let reason = stop.reason { return reason }
            if let limit = config.seconds, clock.now() - runStart >= limit { return "seconds" }
            if reloadIfAsked() { gate.force(.reload) }
            takeCommands()
            let t0 = clock.now()
            let frame: Frame
            do {
                guard
                    let f = try waiting(
                        LoopWait("a frame from the source", atMost: Self.sourceWait), { () throws(CaptureError) in try source.next() })
                else { return stop.reason ?? "end of source" }
                frame = f
            } catch {
                throw .source(error.description)
            }
            let t1 = clock.now()
            // Rules outside their schedule leave the prompt; with none in it, there is nothing to ask.
            let active = activeRules()
            if active.isEmpty {
                pause(1)
                continue
            }
            let verdict = gate.judge(frame.image, at: clock.now() - runStart)
            let gateSeconds = clock.now() - t1
            gateCounts.add(skipped: verdict.reason == nil, at: clock.now() - runStart)
            guard let asked = verdict.reason else {
                skippedSince += 1
                events.emit(.skipped(snapshot))
                // While skipping, frames are taken --gate-fps a second (a stepped video takes its own steps).
                if case .realtime = config.sourceOptions.pace { pause(t0 + 1 / gate.settings.fps - clock.now()) }
                continue
            }
            index += 1
            let outcome: FrameOutcome
            do {
                let note = GateNote(asked: asked.rawValue, change: verdict.change, skipped: skippedSince, seconds: gateSeconds)
                skippedSince = 0
                // The yes/no question, then a place or a description for each rule that fires.
                let bound = model.longestWait * Double(2 + active.count)
                outcome = try waiting(LoopWait("the model's answer", atMost: bound)) { () throws(WatchError) in
                    try step(frame, index: index, grab: t1 - t0, active: active, gate: note)
                }
            } catch {
                guard case .model(_, let reason) = error else { throw error }
                failures += 1
                gate.force(.retry)
                let failure = FrameFailure(index: index, runT: clock.now() - runStart, stage: "model", reason: reason, inARow: failures)
                events.emit(.frameFailed(failure, snapshot))
                if model.endsRunAfterFailures {
                    Log.shared.error("frame \(index): the model failed (\(failures) in a row): \(reason)")
                    if failures >= Self.failureLimit { throw .failedInARow(count: failures, reason: reason) }
                } else if failures == 1 {
                    // A server's outage: one error line, then one when it answers again.
                    Log.shared.error("frame \(index): the engine's server failed: \(reason); asking again with backoff")
                }
                let backoff = min(30, Double(1 << min(failures - 1, 5)))
                waiting(LoopWait("the next try after a failed frame", atMost: backoff + 5)) { pause(backoff) }
                continue
            }
            if failures > 0 {
                let who = model.endsRunAfterFailures ? "the model" : "the engine's server"
                Log.shared.notice("frame \(index): \(who) answers again after \(failures) failed frames")
            }
            failures = 0
            latest = outcome
            events.emit(.frame(outcome, shown: lastShown, snapshot))
        }
    }

    /// The longest a source may go without a frame or a word of its own (a lost camera's events).
    static let sourceWait: Double = 300

    /// Runs `body` as a declared wait: the watchdog takes the loop as alive until `wait`'s bound.
    private func waiting<T, E: Error>(_ wait: LoopWait, _ body: () throws(E) -> T) throws(E) -> T {
        events.emit(.waiting(wait))
        defer { events.emit(.waiting(nil)) }
        return try body()
    }

    /// Waits `seconds`, cut short by a stop.
    private func pause(_ seconds: Double) { clock.wait(upTo: seconds, every: 0.1) { stop.isRequested } }

    /// What the loop shows the world: the rules and their states, the latest frame, the counts.
    public var snapshot: WatchSnapshot {
        let states = machine.states
        let rows = rules.enumerated().map { i, rule in
            WatchSnapshot.Row(
                rule: rule, state: i < states.count ? states[i] : RuleMachine.State(),
                shown: reactor.shown(rule.reaction, condition: rule.condition),
                count: rule.reaction.isCount ? reactor.count(for: rule.condition) : nil, description: lastDescriptions[rule.condition],
                switchedOff: switchedOff.contains(rule.condition), inactive: latest?.inactive.contains(i) ?? false)
        }
        return WatchSnapshot(
            rows: rows, rulesSource: rulesSource, frame: latest?.index ?? 0, fired: !(latest?.fires.isEmpty ?? true),
            fires: fireCount, reloads: reloadCount, numbers: latest.map { [$0.numbers, $0.place] },
            gate: gate.settings.enabled ? gateCounts : nil, runT: clock.now() - runStart, lastSnapshot: lastSnapshot,
            outbound: reactor.outbound)
    }

    /// What the change gate said about a frame the model is asked about.
    struct GateNote {
        var asked: String
        var change: Double?
        var skipped: Int
        var seconds: Double
    }

    /// One frame: the question, the answers, the fires, the records.
    private func step(_ frame: Frame, index: Int, grab: Double, active: [Int], gate note: GateNote) throws(WatchError) -> FrameOutcome {
        let t1 = clock.now()
        let shown = config.grid ? GridOverlay.draw(on: frame.image) : frame.image
        lastShown = shown
        let t2 = clock.now()
        // One question per region, the whole frame first, then the regions as the rules name them:
        // rules that share one share its prompt.
        var groups: [(region: Region?, rules: [Int])] = [(nil, [])]
        for i in active {
            let region = rules[i].settings.region
            if let g = groups.firstIndex(where: { $0.region == region }) { groups[g].rules.append(i) } else { groups.append((region, [i])) }
        }
        groups.removeAll { $0.rules.isEmpty }
        var wholeFrame: EncodedImage?
        var answers = [Answer](repeating: .unread, count: rules.count)
        var confidences: [Double?]?
        var generation = Generation(text: "", stop: .endOfText, timings: .none)
        var decodeSteps: Int?
        // --cells batch: what each rule's line says after its Yes, read within its own question.
        var afterYes = [String?](repeating: nil, count: rules.count)
        do {
            for group in groups {
                let picture = group.region.map { shown.cropped(x: $0.x, y: $0.y, w: $0.w, h: $0.h) } ?? shown
                let encoded = try model.encode(picture)
                if group.region == nil { wholeFrame = encoded }
                let asked = try ask(encoded, rules: group.rules)
                for (k, i) in group.rules.enumerated() {
                    answers[i] = asked.answers[k]
                    if let c = asked.confidence {
                        if confidences == nil { confidences = Array(repeating: nil, count: rules.count) }
                        confidences?[i] = c[k]
                    }
                }
                if let steps = asked.steps { decodeSteps = (decodeSteps ?? 0) + steps }
                if config.cells == .batch {
                    let after = AnswerParser.afterYes(asked.generation.text, ruleCount: group.rules.count)
                    for (k, i) in group.rules.enumerated() { afterYes[i] = after[k] }
                }
                generation.append(asked.generation, encoded: encoded.encodeSeconds)
            }
        } catch {
            throw .model(frame: index, reason: "\(error)")
        }
        let t3 = clock.now()
        let outcomes = machine.step(answers, confidences: confidences, at: ruleTime(frame))
        let t4 = clock.now()
        let fired = outcomes.indices.filter { outcomes[$0] == .fired }
        let suppressed = outcomes.indices.filter { outcomes[$0] == .suppressed }
        // Place questions look at the whole frame: encoded only when one is asked and no question had it.
        let places = self.places(fired: fired, afterYes: afterYes, frame: index) {
            if wholeFrame == nil { wholeFrame = try? self.model.encode(shown) }
            return wholeFrame
        }
        var outcome = FrameOutcome(
            index: index, captureT: frame.captured - runStart, sourceT: frame.sourceTime, label: frame.label,
            size: (frame.image.width, frame.image.height), age: frame.age, grab: grab, decode: frame.decodeSeconds,
            scale: frame.scaleSeconds, prompt: t2 - t1, model: t3 - t2, timings: generation.timings, raw: generation.text,
            answers: answers, parse: t4 - t3, done: clock.now() - frame.captured, fired: fired, suppressed: suppressed,
            places: places, numbers: Self.numbers(generation.timings, model: t3 - t2),
            place: NumbersLine.watchPlace(frame: index, where: model.place),
            truth: frame.label.flatMap { config.truth[($0 as NSString).deletingPathExtension] },
            png: writeFrame(shown, index: index))
        (outcome.asked, outcome.change, outcome.skipped, outcome.gate) = (note.asked, note.change, note.skipped, note.seconds)
        (outcome.confidence, outcome.decodeSteps) = (confidences, decodeSteps)
        outcome.inactive = rules.indices.filter { !active.contains($0) }
        for (i, o) in outcomes.enumerated() where o == .heldConfidence || o == .heldConfirm { outcome.heldBack[i] = o.rawValue }
        // The frame's line first, then its fires, as the seed's log has them.
        events.emit(.answered(outcome))
        for i in fired {
            fireCount += 1
            outcome.fires.append(fire(rule: i, number: fireCount, frame: index, captured: frame, shown: shown, place: places[i]))
        }
        describe(&outcome.fires) {
            if wholeFrame == nil { wholeFrame = try? self.model.encode(shown) }
            return wholeFrame
        }
        return outcome
    }

    /// Asks the numbered question for `indices` about one picture: constrained when the engine can
    /// (and the cell is not asked inside the answer), else free text, read.
    private func ask(_ image: EncodedImage, rules indices: [Int]) throws -> (
        generation: Generation, answers: [Answer], confidence: [Double?]?, steps: Int?
    ) {
        let prompt = config.prompt(for: indices.map { rules[$0] })
        if config.constrain, config.cells != .batch,
            let c = try model.yesNo(image: image, prompt: prompt, count: indices.count, cancellation: stop.cancellation)
        {
            let answers = indices.indices.map { $0 < c.yes.count ? (c.yes[$0] ? Answer.yes : .no) : .unread }
            // A line the answer did not reach (stopped, context full) has no confidence.
            return (c.generation, answers, indices.indices.map { $0 < c.confidence.count ? c.confidence[$0] : nil }, c.decodeSteps)
        }
        let g = try model.generate(
            image: image, prompt: prompt, maxTokens: config.answerTokens(rules: indices.count), cancellation: stop.cancellation, onText: { _ in })
        return (g, AnswerParser.parse(g.text, ruleCount: indices.count), nil, nil)
    }

    /// The rules active now (not switched off, and in their schedules on the wall clock); a rule that
    /// has just become active again starts with a fresh state.
    func activeRules() -> [Int] {
        let now = wallClock()
        let active = rules.indices.filter {
            !switchedOff.contains(rules[$0].condition) && (rules[$0].settings.schedule?.isActive(at: now, calendar: calendar) ?? true)
        }
        for i in active where wasActive.count == rules.count && !wasActive[i] {
            machine.reset(rule: i)
            gate.force(.schedule) // a rule that has just become active needs an answer
        }
        wasActive = rules.indices.map { active.contains($0) }
        return active
    }

    /// `first token 1.27 s · total 1.37 s`
    static func numbers(_ timings: GenerationTimings, model: Double) -> String {
        "first token \(NumbersLine.seconds(timings.firstToken ?? timings.total)) · total \(NumbersLine.seconds(model))"
    }

    /// `--frames DIR`: the frame as the model got it, as PNG; nil when not asked or not written.
    private func writeFrame(_ image: RGBImage, index: Int) -> String? {
        guard let dir = config.framesDir else { return nil }
        let path = (dir as NSString).appendingPathComponent(String(format: "frame-%05d.png", index))
        do {
            try PNGWriter.write(image, to: path)
            if let lost = framesOutage.succeeded() { Log.shared.notice("Frames are written to \(dir) again; \(lost) were not written.") }
            return path
        } catch {
            if framesOutage.failed(error.reason) { Log.shared.warning("\(error.description) Frames are not written until they can be.") }
            return nil
        }
    }

    /// Where each fired rule's thing is: asked (`--cells box|ask`) or read from the reply (`batch`).
    private func places(fired: [Int], afterYes: [String?], frame index: Int, image: () -> EncodedImage?) -> [Int: Place] {
        var places: [Int: Place] = [:]
        switch config.cells {
        case .none: break
        case .batch:
            let cells = CellParser.batch(afterYes: afterYes)
            for i in fired { places[i] = Place(rule: i, cell: cells[i]) }
        case .box, .ask:
            let asker = PlaceAsker(model: model, form: config.cells, cellWords: config.cellWords, cancellation: stop.cancellation)
            // A place question that fails leaves the fire without a place (an effect plays on the
            // whole frame): the rule's yes has been counted, so its reaction must still run.
            for i in fired where asker.wants(rules[i].reaction) {
                guard let image = image() else { continue }
                do {
                    places[i] = try asker.ask(rule: i, condition: rules[i].condition, image: image)
                } catch {
                    Log.shared.error(WatchError.place(frame: index, reason: "\(error)").description)
                }
            }
        }
        return places
    }

    /// The time the cooldown counts in: video time when stepping through a file (so a batch run
    /// fires the same whatever the machine's speed), the run's clock otherwise.
    private func ruleTime(_ frame: Frame) -> Double {
        if case .frames = config.sourceOptions.pace, let t = frame.sourceTime { return t }
        return frame.captured
    }

    static func modified(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    /// Checks, before a frame, whether the rules file changed (`--watch-rules`).
    func rulesFileChanged() -> Bool {
        guard config.watchRules, let stamp = Self.modified(config.rulesSpec), stamp != rulesStamp else { return false }
        rulesStamp = stamp
        return true
    }

    /// Takes the settings of the rules in force: live settings, the disabled rules, the gate's masks.
    func take(_ inForce: RulesInForce) {
        config = inForce.config
        machine.cooldown = config.cooldown
        disabledRules = inForce.disabled
        (gate.settings.threshold, gate.settings.fps, gate.settings.maxSeconds) = (config.gate.threshold, config.gate.fps, config.gate.maxSeconds)
        gate.settings.masks = inForce.gateMasks
    }

    /// Takes new rules: those whose words are unchanged keep their state. Returns how many kept it.
    func adopt(_ newRules: [Rule], source: String) -> Int {
        let kept = machine.adopt(from: rules, to: newRules)
        rules = newRules
        switchedOff.formIntersection(newRules.map(\.condition))
        wasActive = [] // the schedules' memory was of the old list
        rulesSource = source
        rulesStamp = Self.modified(config.rulesSpec)
        return kept
    }
}

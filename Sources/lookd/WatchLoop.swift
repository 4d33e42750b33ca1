import Capture
import Foundation
import Grounding
import LookCore
import Media
import Reactions
import Rules
import VLM

/// The watch loop: take a frame, ask the numbered question, read the answers, fire what turned yes,
/// record it all; the next frame is taken when the answer before it is in.
final class WatchLoop {
    let source: any FrameSource
    let model: any VisionLanguageModel
    private(set) var rules: [Rule]
    private(set) var machine: RuleMachine
    let settings: WatchSettings
    let events: EventLog
    let reactor: any ReactionPerformer
    let stop: StopSignal
    let clock: any Clock
    let record: RunRecord
    /// Called after each frame with its numbers lines (the terminal's status line, the service's status).
    var onFrame: ((FrameReport) -> Void)?
    /// Called before each frame is taken (where a reload asked for by SIGHUP takes effect).
    var beforeFrame: (() -> Void)?
    /// The latest frame's report.
    private(set) var latest: FrameReport?

    var runStart = 0.0

    struct FrameReport {
        var frame: Int
        var fired = false
        var answers: [Answer]
        var numbers: String
        var place: String
    }

    init(source: any FrameSource, model: any VisionLanguageModel, rules: [Rule], settings: WatchSettings,
         events: EventLog, reactor: any ReactionPerformer, stop: StopSignal, clock: any Clock, record: RunRecord) {
        self.source = source
        self.model = model
        self.rules = rules
        self.machine = RuleMachine(ruleCount: rules.count, cooldown: settings.cooldown)
        self.settings = settings
        self.events = events
        self.reactor = reactor
        self.stop = stop
        self.clock = clock
        self.record = record
    }

    /// Runs until the source ends, `--seconds` pass, or a stop is requested. Returns why it stopped.
    func run() throws(CommandFailure) -> String {
        runStart = clock.now()
        var index = 0
        while true {
            if let reason = stop.reason { return reason }
            if let limit = settings.seconds, clock.now() - runStart >= limit { return "seconds" }
            beforeFrame?()
            index += 1
            guard try step(index) else { return stop.reason ?? "end of source" }
        }
    }

    /// One frame; false when the source has ended.
    private func step(_ index: Int) throws(CommandFailure) -> Bool {
        let t0 = clock.now()
        let frame: Frame
        do {
            guard let f = try source.next() else { return false }
            frame = f
        } catch {
            throw CommandFailure(code: .failure, message: error.description)
        }
        let t1 = clock.now()
        let prompt = WatchPrompt.text(for: rules, cells: settings.cells == .batch)
        let shown = settings.grid ? GridOverlay.draw(on: frame.image) : frame.image
        let t2 = clock.now()
        let encoded: EncodedImage
        var generation: Generation
        do {
            encoded = try model.encode(shown)
            generation = try model.generate(image: encoded, prompt: prompt, maxTokens: settings.maxTokens,
                                            cancellation: stop.cancellation, onText: { _ in })
            generation.timings.addEncoding(encoded.encodeSeconds)
        } catch {
            throw CommandFailure(code: .failure, message: "FAILED: the model failed on frame \(index): \(error)")
        }
        let t3 = clock.now()
        let answers = AnswerParser.parse(generation.text, ruleCount: rules.count)
        let outcomes = machine.step(answers, at: ruleTime(frame))
        let t4 = clock.now()

        var fired: [Int] = [], suppressed: [Int] = []
        for (i, outcome) in outcomes.enumerated() {
            switch outcome {
            case .fired: fired.append(i)
            case .suppressed: suppressed.append(i)
            case .none: break
            }
        }
        let places = try self.places(fired: fired, reply: generation.text, image: encoded, frame: index)
        var framePNG: String?
        if let dir = settings.framesDir {
            let path = (dir as NSString).appendingPathComponent(String(format: "frame-%05d.png", index))
            do { try PNGWriter.write(shown, to: path); framePNG = path } catch {
                Log.shared.warning(error.description)
            }
        }
        for i in suppressed {
            let entry: [(String, JSON)] = [("rule", .int(i + 1)), ("condition", .string(rules[i].condition)), ("frame", .int(index)),
                                           ("t", .number(frame.captured - runStart))]
            record.suppressed.append(.object(entry))
        }
        let timings = generation.timings
        let numbers = "first token \(NumbersLine.seconds(timings.firstToken ?? timings.total)) · total \(NumbersLine.seconds(t3 - t2))"
        let place = NumbersLine.watchPlace(frame: index)
        let truth = frame.label.flatMap { settings.truth[($0 as NSString).deletingPathExtension] }
        var fields: [(String, JSON)] = [
            ("frame", .int(index)),
            ("capture_t", .number(frame.captured - runStart)),
            ("source_t", .optional(frame.sourceTime)),
            ("label", .optional(frame.label)),
            ("age_ms", .number(frame.age * 1000, places: 1)),
            ("grab_ms", .number((t1 - t0) * 1000, places: 1)),
            ("decode_ms", .optional(frame.decodeSeconds.map { $0 * 1000 }, places: 2)),
            ("scale_ms", .optional(frame.scaleSeconds.map { $0 * 1000 }, places: 2)),
            ("prompt_ms", .number((t2 - t1) * 1000, places: 2)),
            ("model_ms", .number((t3 - t2) * 1000, places: 1)),
            ("first_token_ms", .optional(timings.firstToken.map { $0 * 1000 }, places: 1)),
            ("parse_ms", .number((t4 - t3) * 1000, places: 2)),
            ("done_ms", .number((clock.now() - frame.captured) * 1000, places: 1)),
            ("tokens_in", .int(timings.inputTokens)),
            ("tokens_out", .int(timings.outputTokens)),
            ("answers", .strings(answers.map(\.rawValue))),
            ("raw", .string(generation.text)),
            ("fired", .ints(fired.map { $0 + 1 })),
            ("suppressed", .ints(suppressed.map { $0 + 1 })),
            ("size", .ints([frame.image.width, frame.image.height])),
            ("cells", .array((0..<rules.count).map { i in .optional(places[i]?.cell?.number) })),
            ("boxes", .array((0..<rules.count).map { i in Place.json(places[i]?.box) })),
            ("place_ms", .number(places.values.reduce(0) { $0 + $1.seconds } * 1000, places: 1)),
            ("place_asks", .array(places.values.filter { $0.text != nil }.sorted { $0.rule < $1.rule }.map(\.asked))),
            ("numbers", .string(numbers)),
            ("place", .string(place)),
        ]
        if let truth {
            let matched = zip(answers, truth).filter { $0.0 == $0.1 }.count
            fields += [("truth", .strings(truth.map(\.rawValue))), ("matched", .int(matched))]
            record.score(matched: matched, of: min(truth.count, answers.count))
        }
        if let framePNG { fields.append(("png", .string(framePNG))) }
        let t5 = clock.now()
        events.write("watch", fields)
        let recordMs = (clock.now() - t5) * 1000
        record.addFrame(fields + [("record_ms", .number(recordMs, places: 2))], answers: answers, fired: fired,
                        timings: timings, grab: t1 - t0, decode: frame.decodeSeconds, scale: frame.scaleSeconds, model: t3 - t2, age: frame.age, done: clock.now() - frame.captured,
                        prompt: t2 - t1, parse: t4 - t3, recordWrite: recordMs / 1000)
        // The frame's line first, then its fires, as the seed's log has them.
        var held = 0.0
        for i in fired { held += fire(rule: i, frame: index, captured: frame, shown: shown, place: places[i]) }
        if held > 0 { record.addFrameHold(ms: held * 1000) }
        latest = FrameReport(frame: index, fired: !fired.isEmpty, answers: answers, numbers: numbers, place: place)
        onFrame?(latest!)
        return true
    }

    /// The time the cooldown counts in: video time when stepping through a file (so a batch run
    /// fires the same whatever the machine's speed), the run's clock otherwise.
    /// New rules in force from the next frame: rules whose words are unchanged keep their state (the
    /// answer before, the cooldown, the fire count). Returns how many kept it.
    @discardableResult
    func adopt(_ newRules: [Rule]) -> Int {
        let kept = machine.adopt(from: rules, to: newRules)
        rules = newRules
        return kept
    }

    /// Where each fired rule's thing is: asked (`--cells box|ask`) or read from the reply (`batch`).
    private func places(fired: [Int], reply: String, image: EncodedImage, frame index: Int) throws(CommandFailure) -> [Int: Place] {
        var places: [Int: Place] = [:]
        switch settings.cells {
        case .none: break
        case .batch:
            let cells = AnswerParser.cells(reply, ruleCount: rules.count)
            for i in fired { places[i] = Place(rule: i, cell: cells[i]) }
        case .box, .ask:
            let asker = PlaceAsker(model: model, form: settings.cells, cellWords: settings.cellWords, cancellation: stop.cancellation)
            for i in fired where asker.wants(rules[i]) {
                do {
                    places[i] = try asker.ask(rule: i, condition: rules[i].condition, image: image)
                } catch {
                    throw CommandFailure(code: .failure, message: "FAILED: the model failed on frame \(index)'s place question: \(error)")
                }
            }
        }
        return places
    }

    private func ruleTime(_ frame: Frame) -> Double {
        if case .frames = settings.sourceOptions.pace, let t = frame.sourceTime { return t }
        return frame.captured
    }
}

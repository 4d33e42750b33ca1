import LookCore
import Rules

/// What became of one watch frame, typed: the frame, its times, the model's answer read rule by
/// rule, what fired and was held back, and where. The watch loop composes it once from its stages'
/// parts and emits it once (`answered`, the event log's `watch` line); what comes of the frame
/// after it (the fires, their holds and descriptions) is its `FrameEnd`. It is defined here because
/// the records encode it (imports point one way: Watch → Records).
public struct FrameOutcome: Sendable {
    /// The frame's number in the run, from 1.
    public let index: Int
    /// Seconds into the run when the frame was taken; its time in the source; a photo's name.
    public let captureT: Double
    public let sourceT: Double?
    public let label: String?
    public let size: (width: Int, height: Int)
    /// How old the picture was when taken, and the steps before the model: seconds.
    public let age: Double
    public let grab: Double
    public let decode: Double?
    public let scale: Double?
    public let prompt: Double
    /// The model's answer: its wall time, its own numbers, the text, and each rule's answer.
    public let model: Double
    public let timings: GenerationTimings
    public let raw: String
    public let answers: [Answer]
    public let parse: Double
    /// From capture until the answer was read and the places asked.
    public let done: Double
    /// Rules (from 0) that fired, and whose yes the cooldown held back.
    public let fired: [Int]
    public let suppressed: [Int]
    /// The place asked or read for each fired rule that has one (keyed by rule).
    public let places: [Int: Place]
    /// The numbers lines for this frame.
    public let numbers: String
    public let place: String
    /// What the photo shows, rule by rule (`--truth`), when known.
    public let truth: [Answer]?
    /// The frame as the model got it, when `--frames` wrote it.
    public let png: String?
    /// With a constrained answer: each rule's P(yes) (0–1) and the decode steps after the prompt;
    /// nil when the answer was free text.
    public let confidence: [Double?]?
    public let decodeSteps: Int?
    /// Yeses held back by a rule's settings, keyed by rule: `confirm` or `confidence`.
    public let heldBack: [Int: String]
    /// Rules outside their schedule (`when_active`): not asked on this frame.
    public let inactive: [Int]
    /// Why it was asked (the change gate: `first`, `changed`, `max`, `reload`; `every` with the gate
    /// off), the share of the picture that changed since the last answered frame, the frames skipped
    /// since then, and the gate's own time on this frame.
    public let asked: String
    public let change: Double?
    public let skipped: Int
    public let gate: Double
    /// The vision tower's work for the whole frame (tokens computed, of all; bytes kept) when the
    /// camera reuses its last encode (`--reuse`); nil when it does not.
    public let tower: TowerWork?

    public init(
        index: Int, captureT: Double, sourceT: Double?, label: String?, size: (width: Int, height: Int), age: Double,
        grab: Double, decode: Double?, scale: Double?, prompt: Double, model: Double, timings: GenerationTimings, raw: String,
        answers: [Answer], parse: Double, done: Double, fired: [Int], suppressed: [Int], places: [Int: Place],
        numbers: String, place: String, truth: [Answer]?, png: String?, confidence: [Double?]? = nil, decodeSteps: Int? = nil,
        heldBack: [Int: String] = [:], inactive: [Int] = [], asked: String = "every", change: Double? = nil, skipped: Int = 0,
        gate: Double = 0, tower: TowerWork? = nil
    ) {
        self.index = index
        self.captureT = captureT
        self.sourceT = sourceT
        self.label = label
        self.size = size
        self.age = age
        self.grab = grab
        self.decode = decode
        self.scale = scale
        self.prompt = prompt
        self.model = model
        self.timings = timings
        self.raw = raw
        self.answers = answers
        self.parse = parse
        self.done = done
        self.fired = fired
        self.suppressed = suppressed
        self.places = places
        self.numbers = numbers
        self.place = place
        self.truth = truth
        self.png = png
        (self.confidence, self.decodeSteps, self.heldBack, self.inactive) = (confidence, decodeSteps, heldBack, inactive)
        (self.asked, self.change, self.skipped, self.gate, self.tower) = (asked, change, skipped, gate, tower)
    }

    /// The answers as records and the live line show them: `yes`, `no`, `?` (cannot be read), and
    /// `inactive` for a rule outside its `when_active` hours (not asked).
    public var shownAnswers: [String] {
        answers.enumerated().map { i, answer in inactive.contains(i) ? "inactive" : answer.rawValue }
    }

    /// How many of the answers matched `truth`.
    public var matched: Int? { truth.map { t in zip(answers, t).filter { $0.0 == $0.1 }.count } }
}

extension FrameOutcome {
    /// The `watch` event line's fields (the run record's frame entry adds `record_ms` and `hold_ms`).
    public var eventFields: [(String, JSON)] {
        let rules = answers.count
        var fields: [(String, JSON)] = [
            ("frame", .int(index)),
            ("capture_t", .number(captureT)),
            ("source_t", .optional(sourceT)),
            ("label", .optional(label)),
            ("age_ms", .number(age * 1000, places: 1)),
            ("grab_ms", .number(grab * 1000, places: 1)),
            ("decode_ms", .optional(decode.map { $0 * 1000 }, places: 2)),
            ("scale_ms", .optional(scale.map { $0 * 1000 }, places: 2)),
            ("prompt_ms", .number(prompt * 1000, places: 2)),
            ("model_ms", .number(model * 1000, places: 1)),
            ("first_token_ms", .optional(timings.firstToken.map { $0 * 1000 }, places: 1)),
            ("encode_ms", .number(timings.imageEncode * 1000, places: 1)),
            ("tower", tower.map { .ints([$0.computed, $0.tokens]) } ?? .null),
            ("tower_kept_mb", tower.map { .number(Double($0.keptBytes) / 1_000_000, places: 1) } ?? .null),
            ("parse_ms", .number(parse * 1000, places: 2)),
            ("done_ms", .number(done * 1000, places: 1)),
            ("tokens_in", .int(timings.inputTokens)),
            ("tokens_out", .int(timings.outputTokens)),
            ("answers", .strings(shownAnswers)),
            ("confidence", confidence.map { .array($0.map { .optional($0, places: 4) }) } ?? .null),
            ("inactive", .ints(inactive.map { $0 + 1 })),
            ("constrained", .bool(confidence != nil)),
            ("decode_steps", .optional(decodeSteps)),
            ("raw", .string(raw)),
            ("fired", .ints(fired.map { $0 + 1 })),
            ("suppressed", .ints(suppressed.map { $0 + 1 })),
            ("held_back", .array(heldBack.sorted { $0.key < $1.key }.map { .object([("rule", .int($0.key + 1)), ("why", .string($0.value))]) })),
            ("size", .ints([size.width, size.height])),
            ("cells", .array((0..<rules).map { i in .optional(places[i]?.cell?.number) })),
            ("boxes", .array((0..<rules).map { i in places[i]?.boxJSON ?? .null })),
            ("place_ms", .number(places.values.reduce(0) { $0 + $1.seconds } * 1000, places: 1)),
            ("place_asks", .array(places.values.filter { $0.text != nil }.sorted { $0.rule < $1.rule }.map(\.askedJSON))),
            ("numbers", .string(numbers)),
            ("place", .string(place)),
            ("asked", .string(asked)),
            ("change", .optional(change, places: 4)),
            ("skipped", .int(skipped)),
            ("gate_ms", .number(gate * 1000, places: 2)),
        ]
        if let truth, let matched {
            fields += [("truth", .strings(truth.map(\.rawValue))), ("matched", .int(matched))]
        }
        if let png { fields.append(("png", .string(png))) }
        return fields
    }

    /// The run record's entry: the event line's fields, the seconds the line took to write, and
    /// the seconds the frame's effects held it, when they did.
    public func recordEntry(written: Double?, end: FrameEnd) -> JSON {
        var fields = eventFields + [("record_ms", .number((written ?? 0) * 1000, places: 2))]
        if end.held > 0 { fields.append(("hold_ms", .number(end.held * 1000, places: 1))) }
        return .object(fields)
    }
}

extension Place {
    /// A box as the records write it: left, top, right, bottom in per mille; null for none.
    public static func json(_ box: Box?) -> JSON { box.map { .ints([$0.left, $0.top, $0.right, $0.bottom]) } ?? .null }

    public var boxJSON: JSON { Self.json(box) }

    /// The record's entry for one place question (the answer's first 200 characters).
    public var askedJSON: JSON {
        .object([
            ("rule", .int(rule + 1)), ("text", .optional(text.map { String($0.prefix(200)) })),
            ("box", boxJSON), ("cell", .optional(cell?.number)),
            ("ms", .number(seconds * 1000, places: 1)), ("first_token_ms", .optional(firstToken.map { $0 * 1000 }, places: 1)),
            ("tokens", .int(tokens)),
        ])
    }
}

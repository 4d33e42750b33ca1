import LookCore
import Rules

extension FrameOutcome {
    /// What the change gate said about a frame it let through: why it was asked (`first`,
    /// `changed`, `max`, `reload`, `retry`, `schedule`; `every` with the gate off), the share of the
    /// picture that changed, the frames skipped since the last answer, and the gate's own seconds.
    public struct Gated: Sendable {
        public var asked: String
        public var change: Double?
        public var skipped: Int
        public var seconds: Double

        public init(asked: String, change: Double?, skipped: Int, seconds: Double) {
            (self.asked, self.change, self.skipped, self.seconds) = (asked, change, skipped, seconds)
        }
    }

    /// The model's answers to a frame's questions, rule by rule (rules not asked are `unread` and
    /// listed in `inactive`): the seconds the picture took to draw and the model to answer, its
    /// text and numbers, and with a constrained answer each rule's P(yes) and the decode steps.
    public struct Asked: Sendable {
        public var prompt: Double
        public var model: Double
        public var generation: Generation
        public var answers: [Answer]
        public var confidence: [Double?]?
        public var decodeSteps: Int?
        public var inactive: [Int]
        /// The whole frame's tower work, when the camera reuses its last encode.
        public var tower: TowerWork?

        public init(
            prompt: Double, model: Double, generation: Generation, answers: [Answer], confidence: [Double?]?, decodeSteps: Int?,
            inactive: [Int], tower: TowerWork? = nil
        ) {
            (self.prompt, self.model, self.generation, self.answers) = (prompt, model, generation, answers)
            (self.confidence, self.decodeSteps, self.inactive, self.tower) = (confidence, decodeSteps, inactive, tower)
        }
    }

    /// What the rules made of the answers: who fired, whose yes the cooldown held back, whose a
    /// rule's own settings held back (`confirm`, `confidence`), and the seconds it took.
    public struct Judged: Sendable {
        public var fired: [Int]
        public var suppressed: [Int]
        public var heldBack: [Int: String]
        public var seconds: Double

        public init(fired: [Int], suppressed: [Int], heldBack: [Int: String], seconds: Double) {
            (self.fired, self.suppressed, self.heldBack, self.seconds) = (fired, suppressed, heldBack, seconds)
        }
    }

    /// One frame's outcome from its stages: the frame as taken (`runStart` on the same clock as its
    /// capture; `grab` the seconds taking it took), the gate's, the question's and the rules' parts,
    /// the places asked, the seconds from capture to done, where it ran, what the photo shows
    /// (`--truth`) and the PNG `--frames` wrote.
    public init(
        index: Int, frame: Frame, runStart: Double, grab: Double, gated: Gated, asked: Asked, judged: Judged, places: [Int: Place],
        done: Double, place: String, truth: [Answer]?, png: String?
    ) {
        let timings = asked.generation.timings
        self.init(
            index: index, captureT: frame.captured - runStart, sourceT: frame.sourceTime, label: frame.label,
            size: (frame.image.width, frame.image.height), age: frame.age, grab: grab, decode: frame.decodeSeconds,
            scale: frame.scaleSeconds, prompt: asked.prompt, model: asked.model, timings: timings, raw: asked.generation.text,
            answers: asked.answers, parse: judged.seconds, done: done, fired: judged.fired, suppressed: judged.suppressed,
            places: places,
            numbers: "first token \(NumbersLine.seconds(timings.firstToken ?? timings.total)) · total \(NumbersLine.seconds(asked.model))"
                + (asked.tower.map { " · tower \($0.computed) of \($0.tokens) tokens, \($0.keptBytes / 1_000_000) MB kept" } ?? ""),
            place: place, truth: truth, png: png, confidence: asked.confidence, decodeSteps: asked.decodeSteps, heldBack: judged.heldBack,
            inactive: asked.inactive, asked: gated.asked, change: gated.change, skipped: gated.skipped, gate: gated.seconds,
            tower: asked.tower)
    }
}

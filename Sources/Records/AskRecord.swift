import Foundation
import LookCore
import Platform

/// The JSON record `lookd ask --json FILE` writes: the question, the photo, the times and the answer.
public struct AskRecord {
    public let question: String
    public let photo: String
    public let photoSize: [Int]
    public let engine: String
    public let model: String
    public let mmproj: String
    /// The weights the vision tower ran (`q8_0`, `f16`, …); nil for a remote engine.
    public let visionWeights: String?
    public let photoDecodeSeconds: Double
    public let engineReadySeconds: Double
    public let readySeconds: Double
    public let generation: Generation
    public let answerShown: String
    public let numbersLine: String
    public let footer: String
    public let maxTokens: Int
    /// `--then`: the follow-up question's record.
    public var then: JSON? = nil
    /// When it was asked.
    public let time: Date

    public init(
        question: String, photo: String, photoSize: [Int], engine: String, model: String, mmproj: String,
        visionWeights: String? = nil,
        photoDecodeSeconds: Double, engineReadySeconds: Double, readySeconds: Double, generation: Generation,
        answerShown: String, numbersLine: String, footer: String, maxTokens: Int, then: JSON? = nil, time: Date
    ) {
        self.time = time
        self.question = question
        self.photo = photo
        self.photoSize = photoSize
        self.engine = engine
        self.model = model
        self.mmproj = mmproj
        self.visionWeights = visionWeights
        self.photoDecodeSeconds = photoDecodeSeconds
        self.engineReadySeconds = engineReadySeconds
        self.readySeconds = readySeconds
        self.generation = generation
        self.answerShown = answerShown
        self.numbersLine = numbersLine
        self.footer = footer
        self.maxTokens = maxTokens
        self.then = then
    }

    public var json: JSON {
        let t = generation.timings
        return .object(
            [
                ("schema", .string("lookd-ask/1")),
                ("time", .string(ISO8601DateFormatter().string(from: time))),
                ("question", .string(question)),
                ("photo", .string(photo)),
                ("photo_px", .ints(photoSize)),
                ("engine", .string(engine)),
                ("model", .string(model)),
                ("mmproj", .string(mmproj)),
                ("vision_weights", visionWeights.map { .string($0) } ?? .null),
                ("photo_decode_s", .number(photoDecodeSeconds, places: 4)),
                ("engine_ready_s", .number(engineReadySeconds, places: 4)),
                ("t_ready_s", .number(readySeconds, places: 4)),
                ("first_token_s", .optional(t.firstToken, places: 4)),
                ("generate_s", .number(t.total, places: 4)),
                ("image_encode_s", .number(t.imageEncode, places: 4)),
                ("input_tokens", .int(t.inputTokens)),
                ("output_tokens", .int(t.outputTokens)),
                ("tok_s", .optional(t.tokensPerSecond, places: 2)),
                ("max_tokens", .int(maxTokens)),
                ("answer", .string(generation.text)),
                ("answer_shown", .string(answerShown)),
                ("stop", .string(generation.stop.rawValue)),
                ("numbers_line", .string(numbersLine)),
                ("footer", .string(footer)),
            ] + (then.map { [("then", $0)] } ?? []))
    }

    /// The follow-up question's part of the record.
    public static func followUp(_ question: String, _ g: Generation) -> JSON {
        let t = g.timings
        return .object([
            ("question", .string(question)), ("first_token_s", .optional(t.firstToken, places: 4)),
            ("generate_s", .number(t.total, places: 4)), ("image_encode_s", .number(t.imageEncode, places: 4)),
            ("input_tokens", .int(t.inputTokens)), ("output_tokens", .int(t.outputTokens)),
            ("tok_s", .optional(t.tokensPerSecond, places: 2)), ("answer", .string(g.text)), ("stop", .string(g.stop.rawValue)),
        ])
    }

    /// Writes the record whole or not at all (a temporary file renamed into place).
    public func write(to path: String) throws(SafeFile.Failure) {
        try SafeFile.write(json.text(indent: 2) + "\n", to: path)
    }
}

import Foundation
import LookCore
import VLM

/// The JSON record `lookd ask --json FILE` writes: the question, the photo, the times and the answer.
struct AskRecord {
    let question: String
    let photo: String
    let photoSize: [Int]
    let engine: String
    let model: String
    let mmproj: String
    let photoDecodeSeconds: Double
    let engineReadySeconds: Double
    let readySeconds: Double
    let generation: Generation
    let answerShown: String
    let numbersLine: String
    let footer: String
    let maxTokens: Int
    /// `--then`: the follow-up question's record.
    var then: JSON? = nil

    var json: JSON {
        let t = generation.timings
        return .object([
            ("schema", .string("lookd-ask/1")),
            ("time", .string(ISO8601DateFormatter().string(from: Date()))),
            ("question", .string(question)),
            ("photo", .string(photo)),
            ("photo_px", .ints(photoSize)),
            ("engine", .string(engine)),
            ("model", .string(model)),
            ("mmproj", .string(mmproj)),
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
    static func followUp(_ question: String, _ g: Generation) -> JSON {
        let t = g.timings
        return .object([("question", .string(question)), ("first_token_s", .optional(t.firstToken, places: 4)),
                        ("generate_s", .number(t.total, places: 4)), ("image_encode_s", .number(t.imageEncode, places: 4)),
                        ("input_tokens", .int(t.inputTokens)), ("output_tokens", .int(t.outputTokens)),
                        ("tok_s", .optional(t.tokensPerSecond, places: 2)), ("answer", .string(g.text)), ("stop", .string(g.stop.rawValue))])
    }

    /// Writes the record whole or not at all (a temporary file renamed into place).
    func write(to path: String) throws {
        try (json.text(indent: 2) + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}

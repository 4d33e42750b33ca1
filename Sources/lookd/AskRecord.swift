import Foundation
import VLM

/// The JSON record `lookd ask --json FILE` writes: the question, the photo, the times and the answer.
struct AskRecord: Encodable {
    let schema = "lookd-ask/1"
    let time = ISO8601DateFormatter().string(from: Date())
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

    enum CodingKeys: String, CodingKey {
        case schema, time, question, photo, engine, model, mmproj, footer
        case photoSize = "photo_px", photoDecodeSeconds = "photo_decode_s", engineReadySeconds = "engine_ready_s"
        case readySeconds = "t_ready_s", answerShown = "answer_shown", numbersLine = "numbers_line"
        case maxTokens = "max_tokens", firstToken = "first_token_s", generate = "generate_s"
        case imageEncode = "image_encode_s", inputTokens = "input_tokens", outputTokens = "output_tokens"
        case tokS = "tok_s", answer, stop
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(schema, forKey: .schema)
        try c.encode(time, forKey: .time)
        try c.encode(question, forKey: .question)
        try c.encode(photo, forKey: .photo)
        try c.encode(photoSize, forKey: .photoSize)
        try c.encode(engine, forKey: .engine)
        try c.encode(model, forKey: .model)
        try c.encode(mmproj, forKey: .mmproj)
        try c.encode(photoDecodeSeconds, forKey: .photoDecodeSeconds)
        try c.encode(engineReadySeconds, forKey: .engineReadySeconds)
        try c.encode(readySeconds, forKey: .readySeconds)
        let t = generation.timings
        try c.encode(t.firstToken, forKey: .firstToken)
        try c.encode(t.total, forKey: .generate)
        try c.encode(t.imageEncode, forKey: .imageEncode)
        try c.encode(t.inputTokens, forKey: .inputTokens)
        try c.encode(t.outputTokens, forKey: .outputTokens)
        try c.encode(t.tokensPerSecond, forKey: .tokS)
        try c.encode(maxTokens, forKey: .maxTokens)
        try c.encode(generation.text, forKey: .answer)
        try c.encode(answerShown, forKey: .answerShown)
        try c.encode(generation.stop.rawValue, forKey: .stop)
        try c.encode(numbersLine, forKey: .numbersLine)
        try c.encode(footer, forKey: .footer)
    }

    /// Writes the record whole or not at all (a temporary file renamed into place).
    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(self)
        try data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}

import Foundation
import LookCore

/// A model that answers a prompt about a picture, streaming its text.
/// Every `generate` is a new session: nothing from an earlier call is remembered.
public protocol VisionLanguageModel: InputCounting, AnyObject, Sendable {
    /// What answered, for the records (`llama.cpp · model.gguf`, `script · rules.txt`).
    var engineName: String { get }

    /// Prepares `image` for questions. The result can be asked about more than once, so a second
    /// question about the same frame does not pay for encoding it again.
    func encode(_ image: RGBImage) throws -> EncodedImage

    /// A cache for one camera's pictures, so that a picture costs what changed since the camera's
    /// last one (`TowerReuse`); nil for an engine that keeps none.
    func makeTowerCache(_ reuse: TowerReuse) -> (any TowerCache)?

    /// Prepares `image` with `cache`'s kept results, which it then holds (plain `encode` when nil).
    func encode(_ image: RGBImage, cache: (any TowerCache)?) throws -> EncodedImage

    /// Answers `prompt` about `image`: at most `maxTokens` tokens, each piece of whole UTF-8 characters
    /// handed to `onText` as it comes. `cancellation` stops it at the next token.
    func generate(
        image: EncodedImage, prompt: String, maxTokens: Int,
        cancellation: Cancellation?, onText: (String) -> Void
    ) throws -> Generation

    /// Answers `count` numbered yes/no lines under constraint, with a confidence for each; nil for
    /// an engine that cannot constrain (the scripted engine), whose free text is read instead.
    func yesNo(image: EncodedImage, prompt: String, count: Int, cancellation: Cancellation?) throws -> YesNoAnswers?

    /// Whether failed questions in a row end a watch (so that systemd restarts it): true in-process;
    /// false for a server, whose outages are waited out.
    var endsRunAfterFailures: Bool { get }

    /// Where the answers are worked out, for the numbers line: `CPU · on-device`, or the server's.
    var place: String { get }

    /// The longest one question may take, tries and pauses included (seconds): the watchdog takes
    /// a loop waiting on an answer as alive until then.
    var longestWait: Double { get }

    /// How many questions it takes at once (from the cameras of one watch): one in-process; a
    /// server's slots.
    func questionsAtOnce() -> Int
}

extension VisionLanguageModel {
    public func makeTowerCache(_ reuse: TowerReuse) -> (any TowerCache)? { nil }
    public func encode(_ image: RGBImage, cache: (any TowerCache)?) throws -> EncodedImage { try encode(image) }
    public func inputTokens(prompt: String, width: Int, height: Int) -> (input: Int, context: Int)? { nil }
    public func yesNo(image: EncodedImage, prompt: String, count: Int, cancellation: Cancellation?) throws -> YesNoAnswers? { nil }
    public var endsRunAfterFailures: Bool { true }
    public var place: String { "CPU · on-device" }
    /// In-process: ten minutes for one question, far more than the slowest CPU takes.
    public var longestWait: Double { 600 }
    public func questionsAtOnce() -> Int { 1 }

    /// Encodes `image` and answers one prompt about it; the times count from before the encoding.
    public func generate(
        image: RGBImage, prompt: String, maxTokens: Int,
        cancellation: Cancellation? = nil, onText: (String) -> Void = { _ in }
    ) throws -> Generation {
        let encoded = try encode(image)
        var generation = try generate(
            image: encoded, prompt: prompt, maxTokens: maxTokens,
            cancellation: cancellation, onText: onText)
        generation.timings.addEncoding(encoded.encodeSeconds)
        return generation
    }
}

/// A picture made ready for a model's questions. Engines keep what they need in `payload`.
public final class EncodedImage: @unchecked Sendable {
    public let image: RGBImage
    /// Seconds spent encoding (the vision tower), paid once per picture.
    public let encodeSeconds: Double
    /// How many prompt positions the picture takes.
    public let tokenCount: Int
    let payload: AnyObject?
    /// What its encode did with its camera's kept tower results; nil when it had none.
    public let reuse: TowerWork?

    public init(image: RGBImage, encodeSeconds: Double, tokenCount: Int, payload: AnyObject? = nil, reuse: TowerWork? = nil) {
        self.image = image
        self.encodeSeconds = encodeSeconds
        self.tokenCount = tokenCount
        self.payload = payload
        self.reuse = reuse
    }
}

extension VisionLanguageModel {
    /// The files the model runs from, as the records name them (`model` and `mmproj`, or `script`).
    public var recordFiles: JSON {
        switch self {
        case let engine as LlamaEngine:
            return .object(
                [("model", .string(engine.modelPath)), ("mmproj", .string(engine.mmprojPath)), ("vision_weights", .string(engine.visionWeights))]
                    + (engine.towerPath == engine.mmprojPath ? [] : [("vision_copy", .string(engine.towerPath))]))
        case let script as ScriptedModel: return .object([("script", .string(script.path))])
        default: return .null
        }
    }
}

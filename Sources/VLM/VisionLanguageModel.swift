import Foundation
import LookCore

/// A model that answers a prompt about a picture, streaming its text.
/// Every `generate` is a new session: nothing from an earlier call is remembered.
public protocol VisionLanguageModel: AnyObject, Sendable {
    /// What answered, for the records (`llama.cpp · model.gguf`, `script · rules.txt`).
    var engineName: String { get }

    /// Prepares `image` for questions. The result can be asked about more than once, so a second
    /// question about the same frame does not pay for encoding it again.
    func encode(_ image: RGBImage) throws -> EncodedImage

    /// Answers `prompt` about `image`: at most `maxTokens` tokens, each piece of whole UTF-8 characters
    /// handed to `onText` as it comes. `cancellation` stops it at the next token.
    func generate(image: EncodedImage, prompt: String, maxTokens: Int,
                  cancellation: Cancellation?, onText: (String) -> Void) throws -> Generation
}

extension VisionLanguageModel {
    /// Encodes `image` and answers one prompt about it; the times count from before the encoding.
    public func generate(image: RGBImage, prompt: String, maxTokens: Int,
                         cancellation: Cancellation? = nil, onText: (String) -> Void = { _ in }) throws -> Generation {
        let encoded = try encode(image)
        var generation = try generate(image: encoded, prompt: prompt, maxTokens: maxTokens,
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

    public init(image: RGBImage, encodeSeconds: Double, tokenCount: Int, payload: AnyObject? = nil) {
        self.image = image
        self.encodeSeconds = encodeSeconds
        self.tokenCount = tokenCount
        self.payload = payload
    }
}

/// Why a generation ended.
public enum StopReason: String, Sendable, Codable {
    case endOfText = "end", tokenLimit = "limit", cancelled = "stopped"
}

/// One answer: its text as written and how long it took.
public struct Generation: Sendable {
    public var text: String
    public var stop: StopReason
    public var timings: GenerationTimings

    public init(text: String, stop: StopReason, timings: GenerationTimings) {
        self.text = text
        self.stop = stop
        self.timings = timings
    }
}

/// The numbers of one answer. Times are seconds from the start of `generate`.
public struct GenerationTimings: Sendable, Codable, Equatable {
    /// Until the first answer token (the prompt read, the picture encoded if it was not already).
    public var firstToken: Double?
    /// Until the answer ended.
    public var total: Double
    /// Encoding the picture, when this call paid for it (0 when it was encoded before).
    public var imageEncode: Double
    /// Prompt positions read: text tokens and the picture's.
    public var inputTokens: Int
    /// Tokens generated.
    public var outputTokens: Int

    public init(firstToken: Double?, total: Double, imageEncode: Double, inputTokens: Int, outputTokens: Int) {
        self.firstToken = firstToken
        self.total = total
        self.imageEncode = imageEncode
        self.inputTokens = inputTokens
        self.outputTokens = outputTokens
    }

    /// Counts an encoding paid before this answer (its seconds go into every time from the start).
    public mutating func addEncoding(_ seconds: Double) {
        imageEncode += seconds
        total += seconds
        firstToken = firstToken.map { $0 + seconds }
    }

    /// Tokens per second after the first: how fast the rest of the answer followed.
    public var tokensPerSecond: Double? {
        guard let first = firstToken, outputTokens > 1, total > first else { return nil }
        return Double(outputTokens - 1) / (total - first)
    }
}

/// A flag that stops a generation at its next token (and aborts a prompt being read).
public final class Cancellation: @unchecked Sendable {
    private let lock = NSLock()
    private var cancelled = false

    public init() {}

    public func cancel() { lock.withLock { cancelled = true } }
    public var isCancelled: Bool { lock.withLock { cancelled } }
}

import Capture
import Foundation
import LookCore
import ReactionDomain
import Reactions
import VLM

/// A frame source that hands out the pictures it was given, one per call, each at the test clock's
/// time; then it has ended.
public final class ScriptedSource: FrameSource {
    public let info = SourceInfo(kind: "scripted", name: "test frames", width: 8, height: 8, pace: "scripted")
    private var images: [RGBImage]
    private let clock: any Clock
    /// Seconds the test clock moves forward after each frame is taken (the model's time, say).
    private let step: Double
    public private(set) var paused = false

    public init(count: Int, clock: any Clock, step: Double = 0) {
        self.images = (0..<count).map { RGBImage(width: 8, height: 8, fill: (UInt8($0 % 256), 0, 0)) }
        self.clock = clock
        self.step = step
    }

    /// Hands out `images` in order.
    public init(images: [RGBImage], clock: any Clock, step: Double = 0) {
        self.images = images
        self.clock = clock
        self.step = step
    }

    public func next() throws(CaptureError) -> Frame? {
        guard !images.isEmpty else { return nil }
        let image = images.removeFirst()
        let frame = Frame(image: image, captured: clock.now(), sourceTime: nil)
        (clock as? ManualClock)?.advance(step)
        return frame
    }

    public func pause() { paused = true }
    public func resume() { paused = false }
    public var position: Double? { nil }
}

/// A reaction performer that only remembers what it was asked to do.
public final class RecordingReactions: ReactionPerformer, @unchecked Sendable {
    private let lock = NSLock()
    private var _performed: [(reaction: Reaction, condition: String)] = []
    private var _fires: [FireContext] = []

    public init() {}

    public var performed: [(reaction: Reaction, condition: String)] { lock.withLock { _performed } }
    /// The descriptions the reactions were told of, by fire number.
    public var described: [(fire: Int, text: String?)] { lock.withLock { _described } }
    private var _described: [(fire: Int, text: String?)] = []

    public func described(_ reaction: Reaction, fire: FireContext, text: String?, problem: String?) {
        lock.withLock { _described.append((fire.fire, text)) }
    }
    /// The fires as the reactions got them.
    public var fires: [FireContext] { lock.withLock { _fires } }

    public func perform(_ reaction: Reaction, fire: FireContext) -> ReactionResult {
        lock.withLock {
            _performed.append((reaction, fire.condition))
            _fires.append(fire)
        }
        return ReactionResult(performed: true, shown: reaction.name)
    }
}

/// A model double around another model: counts the pictures it is asked to encode, keeps every
/// question with the generation it got, and answers a question from `answer` when that returns text
/// (the rest go to the inner model, on the encoding they are given).
public final class WatchedModel: VisionLanguageModel, @unchecked Sendable {
    public let inner: any VisionLanguageModel
    private let answer: @Sendable (String) -> String?
    private let lock = NSLock()
    private var _encodes = 0
    private var _asked: [(prompt: String, generation: Generation)] = []

    public init(_ inner: any VisionLanguageModel, answer: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.inner = inner
        self.answer = answer
    }

    public var engineName: String { "watched · \(inner.engineName)" }
    public var encodes: Int { lock.withLock { _encodes } }
    public var asked: [(prompt: String, generation: Generation)] { lock.withLock { _asked } }

    public func encode(_ image: RGBImage) throws -> EncodedImage {
        lock.withLock { _encodes += 1 }
        return try inner.encode(image)
    }

    public func generate(
        image: EncodedImage, prompt: String, maxTokens: Int,
        cancellation: Cancellation?, onText: (String) -> Void
    ) throws -> Generation {
        let generation: Generation
        if let text = answer(prompt) {
            onText(text)
            generation = Generation(
                text: text, stop: .endOfText,
                timings: GenerationTimings(
                    firstToken: 0.001, total: 0.002, imageEncode: 0, inputTokens: image.tokenCount, outputTokens: 1))
        } else {
            generation = try inner.generate(image: image, prompt: prompt, maxTokens: maxTokens, cancellation: cancellation, onText: onText)
        }
        lock.withLock { _asked.append((prompt, generation)) }
        return generation
    }
}

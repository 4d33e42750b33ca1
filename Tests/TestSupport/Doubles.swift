import Capture
import Foundation
import LookCore
import Reactions

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

    public init() {}

    public var performed: [(reaction: Reaction, condition: String)] { lock.withLock { _performed } }

    public func perform(_ reaction: Reaction, condition: String, fire: Int, at time: Date) -> ReactionResult {
        lock.withLock { _performed.append((reaction, condition)) }
        return ReactionResult(performed: true, shown: reaction.name)
    }
}

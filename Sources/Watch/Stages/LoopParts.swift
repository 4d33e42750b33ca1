import Gate
import LookCore
import Reactions
import Records
import VLM

/// What the loop and its stages share: the model, the reactions, where events go, the clock (the
/// run's seconds and the date) and the stop.
struct LoopParts {
    let model: any VisionLanguageModel
    let reactor: any ReactionPerformer
    let events: any EventSink
    let clock: any Clock
    let stop: StopSignal
    /// This camera's turn with the model (always its own when no other camera shares it).
    let turn: ModelTurn

    init(model: any VisionLanguageModel, reactor: any ReactionPerformer, events: any EventSink, clock: any Clock, stop: StopSignal, turn: ModelTurn) {
        (self.model, self.reactor, self.events, self.clock, self.stop, self.turn) = (model, reactor, events, clock, stop, turn)
        turn.stop = stop
    }

    /// Runs `body` as a declared wait: the watchdog takes the loop as alive until `wait`'s bound.
    func waiting<T, E: Error>(_ wait: LoopWait, _ body: () throws(E) -> T) throws(E) -> T {
        events.emit(.waiting(wait))
        defer { events.emit(.waiting(nil)) }
        return try body()
    }

    /// Waits `seconds`, cut short by a stop.
    func pause(_ seconds: Double) { clock.wait(upTo: seconds, every: 0.1) { stop.isRequested } }
}

/// A frame as the model was shown it (with the grid when `--grid` is on), and its encoding for the
/// whole frame: kept from the question, or made once when a later stage needs it.
final class ShownFrame {
    let image: RGBImage
    private let model: any VisionLanguageModel
    private var encoded: EncodedImage?

    init(_ image: RGBImage, model: any VisionLanguageModel) {
        (self.image, self.model) = (image, model)
    }

    /// Keeps the question's encoding of the whole frame.
    func keep(_ encoded: EncodedImage) { self.encoded = encoded }

    /// The whole frame encoded; nil when encoding it again failed.
    var whole: EncodedImage? {
        if encoded == nil { encoded = try? model.encode(image) }
        return encoded
    }
}

import Capture
import Foundation
import LookCore
import Media
import Reactions

/// One effect's hold: the frame the model answered stands for `--hold` seconds while its edit is drawn
/// and written; the source is paused meanwhile (a video goes on from where it stopped), and the loop
/// takes no frame. The drawing runs on its own thread during the hold, off the loop's path; the hold
/// ends when both the time is up and the pictures are written.
struct EffectHold {
    let source: any FrameSource
    let clock: any Clock
    let seconds: Double

    struct Outcome {
        var heldSeconds: Double
        var pausedAt: Double?
        var resumedAt: Double?
        var film: EffectFilm.Output?
        var renderError: String?
        /// How long the loop waited for the pictures after the hold's time was up.
        var renderWait: Double
    }

    func run(_ renderer: EffectRenderer, png: String, apng: String) -> Outcome {
        let start = clock.now()
        source.pause()
        let pausedAt = source.position
        let job = RenderJob()
        let hold = seconds
        job.group.enter()
        Thread.detachNewThread {
            let result = Result { () throws(PNGWriter.Failure) -> EffectFilm.Output in
                try EffectFilm.render(renderer, hold: max(hold, 1 / Double(EffectFilm.fps)), png: png, apng: apng)
            }
            job.finish(result)
        }
        clock.sleep(seconds - (clock.now() - start))
        let due = clock.now()
        job.group.wait()
        let waited = clock.now() - due
        let held = clock.now() - start
        source.resume()
        var outcome = Outcome(heldSeconds: held, pausedAt: pausedAt, resumedAt: source.position, renderWait: waited)
        switch job.result {
        case .success(let film): outcome.film = film
        case .failure(let error): outcome.renderError = error.description
        case nil: outcome.renderError = "the pictures were not drawn"
        }
        return outcome
    }
}

/// The drawing's result, handed from its thread to the loop's.
private final class RenderJob: @unchecked Sendable {
    let group = DispatchGroup()
    private let lock = NSLock()
    private var _result: Result<EffectFilm.Output, PNGWriter.Failure>?

    func finish(_ result: Result<EffectFilm.Output, PNGWriter.Failure>) {
        lock.withLock { _result = result }
        group.leave()
    }

    var result: Result<EffectFilm.Output, PNGWriter.Failure>? { lock.withLock { _result } }
}

import Capture
import Foundation
import LookCore
import Media
import Reactions
import Records

/// One effect's hold: the frame the model answered stands for `--hold` seconds while its edit is drawn
/// and written; the source is paused meanwhile (a video goes on from where it stopped), and the loop
/// takes no frame. The drawing runs on its own thread during the hold, off the loop's path; the hold
/// ends when both the time is up and the pictures are written.
struct EffectHold {
    let source: any FrameSource
    let clock: any Clock
    let seconds: Double

    func run(_ renderer: EffectRenderer, png: String, apng: String) -> HoldOutcome {
        let start = clock.now()
        source.pause()
        let pausedAt = source.position
        let job = EffectFilm.Job(renderer, hold: max(seconds, 1 / Double(EffectFilm.fps)), png: png, apng: apng)
        clock.sleep(seconds - (clock.now() - start))
        let due = clock.now()
        let result = job.wait()
        let waited = clock.now() - due
        let held = clock.now() - start
        source.resume()
        var outcome = HoldOutcome(
            held: held, pausedAt: pausedAt, resumedAt: source.position, png: nil, apng: nil, pictures: nil,
            render: nil, renderWait: waited, renderError: nil)
        if let film = result {
            (outcome.png, outcome.apng, outcome.pictures, outcome.render) = (film.png, film.apng, film.pictures, film.seconds)
            outcome.renderError = film.error
        } else {
            outcome.renderError = "the pictures were not drawn"
        }
        return outcome
    }
}

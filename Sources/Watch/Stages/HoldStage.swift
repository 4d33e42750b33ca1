import Capture
import Config
import Foundation
import LookCore
import Platform
import Reactions
import Records

/// The hold stage: the frame the model answered stands for `--hold` seconds while an effect's edit
/// is drawn and written; the source is paused meanwhile (a video goes on from where it stopped),
/// and the loop takes no frame. The drawing runs on its own thread during the hold, off the loop's
/// path; the hold ends when both the time is up and the pictures are written. A stop lets it play
/// out for 3 s at most (`StopSignal.hold`); one it cut ends its animation, and the outcome says so.
struct HoldStage {
    let source: any FrameSource
    let clock: any Clock
    let stop: StopSignal
    /// The run's epoch, which names its effects folder.
    let epoch: Int

    func run(_ renderer: EffectRenderer, fire: Int, config: WatchConfig) -> HoldOutcome {
        let folder = Self.folder(config, epoch: epoch)
        let start = clock.now()
        source.pause()
        let pausedAt = source.position
        let job = EffectFilm.Job(
            renderer, hold: max(config.hold, 1 / Double(EffectFilm.fps)),
            png: (folder as NSString).appendingPathComponent("catch\(fire).png"),
            apng: (folder as NSString).appendingPathComponent("edit\(fire).apng"), clock: clock)
        let (cut, due) = (stop.hold(config.hold - (clock.now() - start), on: clock), clock.now())
        let result = job.wait { stop.isRequested }
        let (waited, held) = (clock.now() - due, clock.now() - start)
        source.resume()
        var outcome = HoldOutcome(
            held: held, pausedAt: pausedAt, resumedAt: source.position, png: nil, apng: nil, pictures: nil,
            render: nil, renderWait: waited, renderError: nil)
        outcome.cut = cut || result?.cut == true
        if let film = result {
            (outcome.png, outcome.apng, outcome.pictures, outcome.render) = (film.png, film.apng, film.pictures, film.seconds)
            outcome.renderError = film.error
        } else {
            outcome.renderError = "the pictures were not drawn"
        }
        return outcome
    }

    /// Where effects' pictures go: `--effects`, else `--frames`, else `watch-<epoch>-effects` in the
    /// record folder; made when the first effect fires.
    static func folder(_ config: WatchConfig, epoch: Int) -> String {
        let folder =
            config.effectsDir ?? config.framesDir
            ?? (config.recordDir as NSString).appendingPathComponent("watch-\(epoch)-effects")
        _ = WritableFolder.problem(folder, what: "effects folder") // made unless refused: the pictures' writes say why
        return folder
    }
}

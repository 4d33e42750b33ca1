import Capture
import Foundation
import LookCore
import Reactions
import Records
import Settings

/// The hold stage: the frame the model answered stands for `--hold` seconds while an effect's edit
/// is drawn and written; the source is paused meanwhile (a video goes on from where it stopped),
/// and the loop takes no frame. The drawing runs on its own thread during the hold, off the loop's
/// path; the hold ends when both the time is up and the pictures are written.
struct HoldStage {
    let source: any FrameSource
    let clock: any Clock
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
            apng: (folder as NSString).appendingPathComponent("edit\(fire).apng"))
        clock.sleep(config.hold - (clock.now() - start))
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

    /// Where effects' pictures go: `--effects`, else `--frames`, else `watch-<epoch>-effects` in the
    /// record folder; made when the first effect fires.
    static func folder(_ config: WatchConfig, epoch: Int) -> String {
        let folder =
            config.effectsDir ?? config.framesDir
            ?? (config.recordDir as NSString).appendingPathComponent("watch-\(epoch)-effects")
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }
}

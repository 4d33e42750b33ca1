import Config
import Foundation
import LookCore
import Media
import Records
import Rules

/// The record stage: what a frame's record needs from outside the loop: the frame as the model got
/// it, as PNG (`--frames`), where it ran (the machine's temperature and memory), and what the photo
/// shows (`--truth`).
final class RecordStage {
    /// `--frames` that cannot be written (a full disk): reported once, not once a frame.
    private var framesOutage = Outage()

    struct Written {
        var png: String?
        var place: String
        var truth: [Answer]?
    }

    func write(_ shown: RGBImage, frame: Frame, index: Int, engine: String, config: WatchConfig) -> Written {
        Written(
            png: config.framesDir.flatMap { png(shown, index: index, dir: $0) },
            place: NumbersLine.watchPlace(frame: index, where: engine),
            truth: frame.label.flatMap { config.truth[($0 as NSString).deletingPathExtension] })
    }

    /// The PNG's path; nil when it could not be written.
    private func png(_ image: RGBImage, index: Int, dir: String) -> String? {
        let path = (dir as NSString).appendingPathComponent(String(format: "frame-%05d.png", index))
        do {
            try PNGWriter.write(image, to: path)
            if let lost = framesOutage.succeeded() { Log.shared.notice("Frames are written to \(dir) again; \(lost) were not written.") }
            return path
        } catch {
            if framesOutage.failed(error.reason) { Log.shared.warning("\(error.description) Frames are not written until they can be.") }
            return nil
        }
    }
}

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
    /// `--frames`, as the config in force names it (a reload may change it).
    private var frames: FramePictures?

    struct Written {
        var png: String?
        var place: String
        var truth: [Answer]?
    }

    func write(_ shown: RGBImage, frame: Frame, index: Int, engine: String, config: WatchConfig) -> Written {
        if frames?.dir != config.framesDir { frames = config.framesDir.map(FramePictures.init) }
        return Written(
            png: frames?.write(shown, index: index), place: NumbersLine.watchPlace(frame: index, where: engine),
            truth: frame.label.flatMap { config.truth[($0 as NSString).deletingPathExtension] })
    }
}

import Config
import VLM

/// This camera's kept vision-tower results (`TowerReuse`): made by the model for the camera's whole
/// frames, made again when a reload changes `--reuse` or its settings, and dropped while the camera
/// is paused. A region's crop is encoded whole: it is a picture of its own.
final class CameraTower {
    private let model: any VisionLanguageModel
    private var cache: (any TowerCache)?
    private var made: TowerReuse?

    init(model: any VisionLanguageModel) { self.model = model }

    /// The cache for a whole frame under `config`; nil with `--reuse off` or an engine that keeps none.
    func cache(_ config: WatchConfig) -> (any TowerCache)? {
        let wanted = config.reuseOn ? config.reuse : nil
        if wanted != made { (cache, made) = (wanted.flatMap { model.makeTowerCache($0) }, wanted) }
        return cache
    }

    /// Forgets what is kept (the next whole frame is encoded whole).
    func drop() { cache?.drop() }
}

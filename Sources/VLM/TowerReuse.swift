import Foundation
import LookCore

/// A camera's kept vision-tower results: made by the engine that fills it (`makeTowerCache`), used
/// only by that engine, for one camera's pictures. `drop` forgets them (the next encode is whole).
public protocol TowerCache: AnyObject, Sendable {
    func drop()
    /// Bytes it keeps now.
    var bytes: Int { get }
}

/// A camera's kept tower results, held for its loop: made by the model for the camera's whole
/// frames, made again when the settings change (a reload of `--reuse`), dropped while the camera is
/// paused and when a lost camera comes back. A region's crop is encoded whole: it is a picture of its own.
public final class CameraTower {
    private let model: any VisionLanguageModel
    private var cache: (any TowerCache)?
    private var made: TowerReuse?
    private var opening = 1

    public init(model: any VisionLanguageModel) { self.model = model }

    /// The cache for a whole frame with `reuse` (nil: `--reuse off`, no cache), of the source's
    /// `opening` (`Frame.opening`: a camera that was lost and came back starts afresh); nil as well
    /// for an engine that keeps none.
    public func cache(_ reuse: TowerReuse?, opening: Int = 1) -> (any TowerCache)? {
        if reuse != made { (cache, made) = (reuse.flatMap { model.makeTowerCache($0) }, reuse) }
        if opening != self.opening {
            cache?.drop()
            self.opening = opening
        }
        return cache
    }

    /// Forgets what is kept (the next whole frame is encoded whole).
    public func drop() { cache?.drop() }
}

extension EncodedImage {
    /// What the vision tower gave for the picture, its image parts one after another (empty for an
    /// engine that keeps no embeddings): for benches that compare two encodes.
    public var imageEmbeddings: [Float] {
        ((payload as? ImagePieces)?.pieces ?? []).flatMap { piece -> [Float] in
            if case .image(_, let values) = piece { return values }
            return []
        }
    }
}

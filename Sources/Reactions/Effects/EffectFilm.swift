import Foundation
import LookCore
import Media

/// A held frame's edit written out: the picture 2.5 s into the hold as PNG (the seed's
/// `catch<n>.png`) and the whole hold as an animated PNG, 10 pictures a second.
public enum EffectFilm {
    public static let fps = 10
    /// The moment the still is taken, as the seed's catch<n>.png (the hold's end when it is shorter).
    public static let catchSeconds = 2.5

    public struct Output: Sendable {
        public var png: String
        public var apng: String
        public var pictures: Int
        /// Seconds spent drawing and encoding.
        public var seconds: Double
    }

    /// Renders `renderer`'s edit over `hold` seconds into `png` and `apng`.
    public static func render(_ renderer: EffectRenderer, hold: Double, png: String, apng: String) throws(PNGWriter.Failure) -> Output {
        let started = MonotonicClock().now()
        let still = renderer.picture(at: min(catchSeconds, hold))
        try PNGWriter.write(still, to: png)
        let count = max(1, Int((hold * Double(fps)).rounded()))
        let writer = try APNGWriter(path: apng, width: renderer.frame.width, height: renderer.frame.height, fps: fps)
        for k in 0..<count {
            try writer.add(renderer.picture(at: Double(k) / Double(fps)))
        }
        try writer.finish()
        return Output(png: png, apng: apng, pictures: count, seconds: MonotonicClock().now() - started)
    }
}

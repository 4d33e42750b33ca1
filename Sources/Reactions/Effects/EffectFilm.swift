import Foundation
import LookCore
import Media

/// A held frame's edit written out: the picture 2.5 s into the hold as PNG (the seed's
/// `catch<n>.png`) and the whole hold as an animated PNG, 10 pictures a second.
public enum EffectFilm {
    public static let fps = 10
    /// The moment the still is taken, as the seed's catch<n>.png (the hold's end when it is shorter).
    public static let catchSeconds = 2.5

    /// What was written: each file that is complete, and the first failure (the still and the
    /// animation are written one after the other; one failing leaves the other as it is).
    public struct Output: Sendable {
        public var png: String?
        public var apng: String?
        public var pictures: Int?
        /// Seconds spent drawing and encoding.
        public var seconds: Double
        public var error: String?
        /// Whether a stop cut the animation short (it holds the pictures drawn until then).
        public var cut = false
    }

    /// Renders `renderer`'s edit over `hold` seconds into `png` and `apng`; once `cancelled` says
    /// so, the animation ends with the pictures drawn so far.
    public static func render(
        _ renderer: EffectRenderer, hold: Double, png: String, apng: String, clock: any Clock, cancelled: () -> Bool = { false }
    ) -> Output {
        let started = clock.now()
        var output = Output(png: nil, apng: nil, pictures: nil, seconds: 0, error: nil)
        do throws(PNGWriter.Failure) {
            try PNGWriter.write(renderer.picture(at: min(catchSeconds, hold)), to: png)
            output.png = png
            let count = max(1, Int((hold * Double(fps)).rounded()))
            let writer = try APNGWriter(path: apng, width: renderer.frame.width, height: renderer.frame.height, fps: fps)
            var drawn = 0
            for k in 0..<count {
                if k > 0, cancelled() {
                    output.cut = true
                    break
                }
                try writer.add(renderer.picture(at: Double(k) / Double(fps)))
                drawn += 1
            }
            try writer.finish()
            (output.apng, output.pictures) = (apng, drawn)
        } catch {
            output.error = error.description
        }
        output.seconds = clock.now() - started
        return output
    }
}

extension EffectFilm {
    /// A film drawn on a thread of its own (during a hold, off the loop's path); `wait` hands over
    /// its result once it is drawn.
    public final class Job: @unchecked Sendable {
        private let group = DispatchGroup()
        private let lock = NSLock()
        private var output: Output?
        private var cancelled = false

        /// Starts drawing `renderer`'s film for `hold` seconds into `png` and `apng`.
        public init(_ renderer: EffectRenderer, hold: Double, png: String, apng: String, clock: any Clock) {
            group.enter()
            Thread.detachNewThread { [self] in
                let film = EffectFilm.render(renderer, hold: hold, png: png, apng: apng, clock: clock) { lock.withLock { cancelled } }
                lock.withLock { output = film }
                group.leave()
            }
        }

        /// Ends the animation at its next picture (a stop).
        public func cancel() { lock.withLock { cancelled = true } }

        /// Waits until the film is drawn; its result. Once `stop` says so, the film is cancelled
        /// and ends at its next picture.
        public func wait(cancellingWhen stop: () -> Bool = { false }) -> Output? {
            while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
                if stop() { cancel() }
            }
            return lock.withLock { output }
        }
    }
}

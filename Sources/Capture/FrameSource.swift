import Foundation
import LookCore

/// Where frames come from: a V4L2 camera, a video file, a stream, a folder of photos.
/// The loop asks for the next frame when the answer before it is in.
public protocol FrameSource: AnyObject {
    /// What the source is, for records and logs.
    var info: SourceInfo { get }
    /// The frame to show the model now, or nil when the source has ended.
    func next() throws(CaptureError) -> Frame?
    /// Stops the source's own time (a video stands still while a frame is held).
    func pause()
    /// Goes on from where it paused, without rewinding.
    func resume()
    /// Where the source stands in its own time, in seconds (a video's position); nil for a live source.
    var position: Double? { get }
    /// The last frame taken at the source's own size (a fire's snapshot), made when asked; nil
    /// when the source cannot give it.
    func original() -> RGBImage?
}

extension FrameSource {
    public func original() -> RGBImage? { nil }
}

/// The time a source runs on: a clock that stands still while paused.
final class SourceClock {
    private let clock: any Clock
    private var started: Double?
    private var pausedAt: Double?
    private var pausedTotal = 0.0

    init(clock: any Clock) { self.clock = clock }

    /// Seconds of source time since the first call (0 at the first call).
    func elapsed() -> Double {
        let now = clock.now()
        if started == nil { started = now }
        let standing = pausedAt.map { now - $0 } ?? 0
        return now - started! - pausedTotal - standing
    }

    func now() -> Double { clock.now() }

    /// Waits on the clock (a video's next frame not yet due).
    func sleep(_ seconds: Double) { clock.sleep(seconds) }

    func pause() {
        if pausedAt == nil { pausedAt = clock.now() }
    }

    func resume() {
        if let at = pausedAt { pausedTotal += clock.now() - at; pausedAt = nil }
    }
}

import Foundation
import LookCore
import Media

/// A video file, played in real time (the video moves on while the model answers; the frame taken
/// is the one due at that moment) or stepped through at a fixed video-time interval (`every`).
public final class VideoFileSource: FrameSource {
    public enum Pace: Sendable, Equatable {
        case realtime
        /// One frame every `every` seconds of video, whatever the time on the wall.
        case frames(every: Double)
    }

    public let info: SourceInfo
    private let file: MediaFile
    private let path: String
    private let pace: Pace
    private let maxSide: Int
    private let clock: SourceClock
    private let scaler = FrameScaler()
    private let current = DecodedFrame() // the newest frame due
    private let originalScaler = FrameScaler()
    private let pending = DecodedFrame() // decoded, but not due yet
    private let decoded = DecodedFrame() // the decoder's latest, before it is sorted
    private var lastTaken: Double? // source time of the last frame handed out
    private var nextStep = 0.0 // frames pace: the next video time to show
    private var ended = false
    private var waited = 0.0 // real time: how long the last call waited for its frame

    /// If the video is this far ahead of the last decoded frame, seek instead of decoding every frame.
    static let seekGap = 2.0

    public init(path: String, pace: Pace = .realtime, maxSide: Int = 448, clock: any Clock) throws(CaptureError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw .unopenableVideo(source: path, reason: "there is no such file")
        }
        do {
            file = try MediaFile(path: path)
        } catch {
            throw .unopenableVideo(source: path, reason: error.reason)
        }
        self.path = path
        self.pace = pace
        self.maxSide = maxSide
        self.clock = SourceClock(clock: clock)
        let paceName: String
        switch pace {
        case .realtime: paceName = "realtime"
        case .frames(let every): paceName = "frames every \(every) s"
        }
        info = SourceInfo(
            kind: "video", name: path, width: file.storedWidth, height: file.storedHeight,
            fps: file.fps > 0 ? file.fps : nil, duration: file.duration, pace: paceName)
    }

    public func pause() { clock.pause() }
    public func resume() { clock.resume() }

    public var position: Double? {
        switch pace {
        case .realtime: return clock.elapsed()
        case .frames: return lastTaken ?? 0
        }
    }

    public func next() throws(CaptureError) -> Frame? {
        guard !ended else { return nil }
        do {
            let started = clock.now()
            waited = 0
            var frame: Frame?
            switch pace {
            case .realtime: frame = try nextRealtime()
            case .frames(let every): frame = try nextStepped(every: every)
            }
            if let scale = frame?.scaleSeconds { frame?.decodeSeconds = clock.now() - started - scale - waited }
            return frame
        } catch let error as MediaError {
            throw .unreadableVideo(source: path, reason: error.reason)
        } catch let error as CaptureError {
            throw error
        } catch {
            throw .unreadableVideo(source: path, reason: "\(error)")
        }
    }

    /// The newest frame whose time has come; nil when the video has ended.
    private func nextRealtime() throws -> Frame? {
        let due = clock.elapsed()
        let taken = clock.now()
        if let last = lastTaken ?? (current.isEmpty ? nil : current.seconds), due - last > Self.seekGap,
            pending.isEmpty || due - pending.seconds > Self.seekGap
        {
            file.seek(to: due)
            pending.clear()
        }
        if !pending.isEmpty, pending.seconds <= due { current.take(pending) }
        while pending.isEmpty {
            guard try file.nextFrame(into: decoded) else { break }
            if decoded.seconds <= due || current.isEmpty {
                current.take(decoded)
            } else {
                pending.take(decoded)
            }
        }
        if lastTaken == current.seconds {
            // The frame due was shown already: wait for the next one, or end with the video.
            guard !pending.isEmpty else { ended = true; return nil }
            let wait = pending.seconds - clock.elapsed()
            if wait > 0 { clock.sleep(wait); waited = wait }
            current.take(pending)
            lastTaken = current.seconds
            return try frame(current, captured: clock.now(), age: max(0, clock.elapsed() - current.seconds))
        }
        guard !current.isEmpty else { ended = true; return nil }
        lastTaken = current.seconds
        return try frame(current, captured: taken, age: max(0, due - current.seconds))
    }

    /// The first frame at or after the next step of video time (the same frame again when the step
    /// is shorter than the frame interval).
    private func nextStepped(every: Double) throws -> Frame? {
        let target = nextStep
        nextStep += every
        let taken = clock.now()
        if current.isEmpty || current.seconds < target - 1e-6 {
            if !current.isEmpty, target - current.seconds > Self.seekGap { file.seek(to: target) }
            while true {
                guard try file.nextFrame(into: decoded) else { ended = true; return nil }
                if decoded.seconds >= target - 1e-6 { current.take(decoded); break }
            }
        }
        lastTaken = current.seconds
        return try frame(current, captured: taken, age: 0)
    }

    /// The frame last taken, at the video's size (converted when asked).
    public func original() -> RGBImage? {
        guard !current.isEmpty else { return nil }
        return try? originalScaler.rgb(current, width: current.width, height: current.height)
    }

    private func frame(_ d: DecodedFrame, captured: Double, age: Double) throws -> Frame {
        let w = d.width, h = d.height
        let size = fittedSize(width: w, height: h, maxSide: maxSide)
        let started = clock.now()
        let image = try scaler.rgb(d, width: size.width, height: size.height)
        var frame = Frame(image: image, captured: captured, sourceTime: d.seconds, age: age, sourceSize: (w, h))
        frame.scaleSeconds = clock.now() - started
        return frame
    }
}

import Foundation
import LookCore
import Media

/// A V4L2 camera (`/dev/video0`). A thread of its own takes every picture the camera sends and keeps
/// only the newest, so the frame the loop takes is never a stale one from a queue; its age is
/// recorded. A camera that fails or goes away is closed and reopened with backoff (0.5 s doubling to
/// 10 s), its format negotiated again, while the run goes on.
public final class CameraSource: LiveSource, @unchecked Sendable {
    public let info: SourceInfo
    private let maxSide: Int
    private let clock: any Clock
    private let reader: Reader
    private var taken = 0

    /// Reports losses and returns (on the camera's thread).
    public var onEvent: (@Sendable (SourceEvent) -> Void)? {
        get { reader.onEvent }
        set { reader.onEvent = newValue }
    }
    /// Polled while waiting for a picture: true ends the wait (a stop was asked for).
    public var shouldStop: (@Sendable () -> Bool)? {
        get { reader.shouldStop }
        set { reader.shouldStop = newValue }
    }

    /// Opens the camera (errors as sentences: missing, permission, busy, no usable format).
    /// `cameraMaxSide`: the largest picture asked of the camera; `maxSide`: the frames the model gets.
    /// `clips`: where its pictures are kept for clips, stamped with the clock.
    public init(
        device: String, cameraMaxSide: Int = 1280, maxSide: Int = 448, clock: any Clock, clips: ClipFeed? = nil
    ) throws(CaptureError) {
        let camera = try CameraDevice(path: device, maxSide: cameraMaxSide)
        self.maxSide = maxSide
        self.clock = clock
        info = SourceInfo(kind: "camera", name: device, width: camera.width, height: camera.height, pace: "live · \(camera.native)")
        reader = Reader(device: camera, path: device, maxSide: cameraMaxSide, clock: clock, clips: clips)
        let thread = Thread { [reader] in reader.run() }
        thread.name = "lookd camera"
        thread.start()
    }

    deinit { reader.stop() }

    /// The picture last taken, at the camera's size.
    public func original() -> RGBImage? { lastPicture }
    private var lastPicture: RGBImage?

    /// A live camera cannot stand still: pausing only means the loop takes no frame meanwhile.
    public func pause() {}
    public func resume() {}
    public var position: Double? { nil }

    /// The newest picture the loop has not had yet; waits while the camera is lost. nil when a stop
    /// was asked for while waiting.
    public func next() throws(CaptureError) -> Frame? {
        let started = clock.now()
        guard let picture = reader.newest(after: taken) else { return nil }
        taken = picture.sequence
        lastPicture = picture.image
        let waited = clock.now() - started
        let scaleStart = clock.now()
        let size = fittedSize(width: picture.image.width, height: picture.image.height, maxSide: maxSide)
        let image =
            size == (picture.image.width, picture.image.height) ? picture.image : picture.image.resized(width: size.width, height: size.height)
        let now = clock.now()
        var frame = Frame(
            image: image, captured: now, sourceTime: nil, age: max(0, clock.now() - picture.captured),
            sourceSize: (picture.image.width, picture.image.height))
        frame.scaleSeconds = now - scaleStart
        frame.waitSeconds = waited
        frame.opening = reader.opening
        return frame
    }

    /// The camera's thread: reads, keeps the newest picture, and reopens a lost camera.
    final class Reader: @unchecked Sendable {
        private let condition = NSCondition()
        private var device: CameraDevice?
        private let path: String
        private let maxSide: Int
        private var latest: (image: RGBImage, captured: Double, sequence: Int)?
        private var sequence = 0
        private var stopped = false
        var onEvent: (@Sendable (SourceEvent) -> Void)?
        var shouldStop: (@Sendable () -> Bool)?
        /// A camera that sends nothing for this long (on the source's clock) is treated as lost.
        let stallSeconds = 10.0
        private let clock: any Clock
        private let clips: ClipFeed?
        /// Compresses the pictures kept for clips (made for the camera's size at each opening).
        private var compressor: PictureCompressor?

        init(device: CameraDevice, path: String, maxSide: Int, clock: any Clock, clips: ClipFeed?) {
            self.device = device
            self.path = path
            self.maxSide = maxSide
            self.clock = clock
            self.clips = clips
            began(device)
        }

        /// The camera opened (again): its pictures start afresh in the clip feed, at its size, as
        /// JPEG (raw when no JPEG encoder can be had).
        private func began(_ camera: CameraDevice) {
            guard let clips else { return }
            compressor = try? PictureCompressor(width: camera.width, height: camera.height)
            let stream =
                compressor == nil
                ? try? ClipStream(rgbWidth: camera.width, height: camera.height) : try? ClipStream(mjpegWidth: camera.width, height: camera.height)
            if let stream { clips.begin(stream, clockStamped: true, maxRate: ClipFeed.encodedRate) }
        }

        /// Keeps a picture for clips, when the feed wants one now.
        private func keep(_ image: RGBImage) {
            guard let clips else { return }
            let now = clock.now()
            guard clips.due(now) else { return }
            if let compressor {
                guard let jpeg = try? compressor.jpeg(image) else { return }
                clips.add(ClipPacket(data: jpeg, pts: now, key: true))
            } else {
                clips.add(ClipPacket(data: image.pixels, pts: now, key: true))
            }
        }

        func stop() {
            condition.withLock {
                stopped = true; condition.broadcast()
            }
        }
        private var isStopped: Bool { condition.withLock { stopped } }

        func run() {
            var lastPicture = clock.now()
            while !isStopped {
                guard let camera = device else { reopen(); lastPicture = clock.now(); continue }
                do throws(CaptureError) {
                    if let (image, stamp) = try camera.read(timeout: 0.5) {
                        let now = clock.now()
                        lastPicture = now
                        keep(image)
                        condition.withLock {
                            sequence += 1
                            latest = (image, stamp.map { min($0, now) } ?? now, sequence)
                            condition.broadcast()
                        }
                    } else if clock.now() - lastPicture > stallSeconds {
                        throw CaptureError.cameraFailed(device: path, reason: "no picture for \(Int(stallSeconds)) s")
                    }
                } catch {
                    device = nil
                    onEvent?(.lost(reason: error.description, retry: CameraFormat.backoff(try: 1)))
                }
            }
            device = nil
        }

        /// Tries to open the camera again, waiting longer after each failed try.
        /// Which opening of the camera its pictures now come from (1, and one more a return).
        var opening: Int { condition.withLock { openings } }
        private var openings = 1

        private func reopen() {
            defer { if device != nil { condition.withLock { openings += 1 } } }
            device = LiveReopening(isStopped: { self.isStopped }, onEvent: onEvent, clock: clock).run {
                () -> Result<(CameraDevice, width: Int, height: Int, native: String), LiveReopening.Failure> in
                do throws(CaptureError) {
                    let camera = try CameraDevice(path: path, maxSide: maxSide)
                    began(camera)
                    return .success((camera, camera.width, camera.height, camera.native))
                } catch {
                    return .failure(LiveReopening.Failure(reason: error.description))
                }
            }
        }

        /// Waits for a picture newer than `sequence` (in slices, so a stop is noticed).
        func newest(after taken: Int) -> (image: RGBImage, captured: Double, sequence: Int)? {
            condition.lock()
            defer { condition.unlock() }
            while !stopped {
                if let latest, latest.sequence > taken { return latest }
                if shouldStop?() == true { return nil }
                _ = condition.wait(slice: 0.2)
            }
            return nil
        }
    }
}

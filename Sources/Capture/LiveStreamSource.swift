import Foundation
import LookCore
import Media

/// A network stream (any URL libavformat opens: rtsp://, http://, udp://, …). A thread of its own
/// reads and decodes all the time, keeping only the newest picture, so the frame the loop takes is
/// always the newest and never a stale one from a backlog. A stream that ends, fails, stalls (nothing
/// for `stallTimeout` seconds) or sends data no picture comes of for as long (garbage) is reopened
/// with the camera's backoff while the run goes on; `next()` waits meanwhile.
public final class LiveStreamSource: LiveSource, @unchecked Sendable {
    public let info: SourceInfo
    private let url: String
    private let maxSide: Int
    private let clock: any Clock
    private let reader: Reader
    private let scaler = FrameScaler()
    private let current = DecodedFrame()
    private let originalScaler = FrameScaler()
    private var takenSequence = 0

    public var onEvent: (@Sendable (SourceEvent) -> Void)? {
        get { reader.onEvent }
        set { reader.onEvent = newValue }
    }
    public var shouldStop: (@Sendable () -> Bool)? {
        get { reader.shouldStop }
        set { reader.shouldStop = newValue }
    }

    /// Opens the stream; one that cannot be opened at the start is an error (a wrong URL is not
    /// retried for ever). `stallTimeout`: seconds without data after which the stream counts as lost.
    /// `clips`: where its packets are kept for clips (each reopening starts it afresh).
    public init(
        url: String, maxSide: Int = 448, clock: any Clock, stallTimeout: Double = 10, clips: ClipFeed? = nil
    ) throws(CaptureError) {
        let file: MediaFile
        let pictures = PictureWatch(clock: clock, limit: stallTimeout)
        do {
            file = try Self.open(url, stallTimeout: stallTimeout, pictures: pictures, clips: clips)
        } catch {
            let silent = "it sent no picture within \(Quantity.number(stallTimeout)) s"
            throw .unopenableVideo(source: url, reason: pictures.cutOff ? silent : error.reason)
        }
        self.url = url
        self.maxSide = maxSide
        self.clock = clock
        info = SourceInfo(
            kind: "stream", name: url, width: file.storedWidth, height: file.storedHeight,
            fps: file.fps > 0 ? file.fps : nil, duration: nil, pace: "live")
        reader = Reader(file: file, clock: clock, pictures: pictures) { () throws(MediaError) -> MediaFile in
            try Self.open(url, stallTimeout: stallTimeout, pictures: pictures, clips: clips)
        }
        let thread = Thread { [reader] in reader.run() }
        thread.name = "lookd stream reader"
        thread.start()
    }

    deinit { reader.stop() }

    private static func open(_ url: String, stallTimeout: Double, pictures: PictureWatch, clips: ClipFeed?) throws(MediaError) -> MediaFile {
        let micros = String(Int(stallTimeout * 1_000_000))
        pictures.opened()
        let file = try MediaFile(path: url, options: ["rw_timeout": micros, "timeout": micros], interrupt: { pictures.overdue })
        pictures.reading(file)
        if let clips {
            clips.begin(try file.clipStream())
            file.feed = clips
        }
        return file
    }

    /// When the stream last gave a picture (or was opened): data that goes on arriving with no
    /// picture coming of it for `limit` seconds is garbage, and ends the read (FFmpeg's interrupt).
    final class PictureWatch: @unchecked Sendable {
        private let clock: any Clock
        let limit: Double
        private let lock = NSLock()
        private var last: Double
        /// The limit ended a read since the stream was last opened (the pictures the decoder still
        /// held come out after it, so the time alone no longer tells).
        private var tripped = false
        /// How far the stream's reading has come, and when it last moved: whether data still came.
        private var position: () -> Int64 = { 0 }
        private var lastPosition: Int64 = -1
        private var dataAt: Double

        init(clock: any Clock, limit: Double) {
            (self.clock, self.limit, last, dataAt) = (clock, limit, clock.now(), clock.now())
        }

        /// The stream is opened (again).
        func opened() { lock.withLock { (last, tripped, dataAt, lastPosition) = (clock.now(), false, clock.now(), -1) } }
        /// The stream opened is `file`, whose reading is watched.
        func reading(_ file: MediaFile) { lock.withLock { position = { [weak file] in file?.bytesRead ?? 0 } } }
        func saw() { lock.withLock { last = clock.now() } }
        /// Asked by FFmpeg during each blocking read.
        var overdue: Bool {
            lock.withLock {
                let now = clock.now(), at = position()
                if at != lastPosition { (lastPosition, dataAt) = (at, now) }
                if now - last > limit { tripped = true }
                return tripped
            }
        }
        var cutOff: Bool { lock.withLock { tripped } }
        /// Why the limit ended the read: data went on coming with no picture of it (within the
        /// limit's last half), or the stream stopped sending.
        var reason: String {
            lock.withLock {
                clock.now() - dataAt < limit / 2
                    ? "no picture came of the stream's data for \(Quantity.number(limit)) s (it is not video lookd can decode)"
                    : "the stream sent nothing for \(Quantity.number(limit)) s"
            }
        }
    }

    /// The frame last taken, at the stream's size.
    public func original() -> RGBImage? {
        guard !current.isEmpty else { return nil }
        return try? originalScaler.rgb(current, width: current.width, height: current.height)
    }

    /// A stream cannot stand still: pausing only means the loop takes no frame meanwhile.
    public func pause() {}
    public func resume() {}
    public var position: Double? { nil }

    /// The newest picture the loop has not had yet; waits while the stream is lost. nil when a stop
    /// was asked for while waiting.
    public func next() throws(CaptureError) -> Frame? {
        guard let (sequence, arrived) = reader.waitNewer(than: takenSequence, into: current) else { return nil }
        takenSequence = sequence
        let w = current.width, h = current.height
        let size = fittedSize(width: w, height: h, maxSide: maxSide)
        do {
            let image = try scaler.rgb(current, width: size.width, height: size.height)
            let now = clock.now()
            var frame = Frame(image: image, captured: now, sourceTime: current.seconds, age: now - arrived, sourceSize: (w, h))
            frame.opening = reader.opening
            return frame
        } catch {
            throw .unreadableVideo(source: url, reason: error.reason)
        }
    }

    /// The reading thread's side: the newest picture, under a lock, and the stream reopened when lost.
    private final class Reader: @unchecked Sendable {
        private var file: MediaFile?
        private let reopen: () throws(MediaError) -> MediaFile
        private let clock: any Clock
        private let condition = NSCondition()
        private let newest = DecodedFrame()
        private let decoded = DecodedFrame() // the reading thread's own, moved into `newest` under the lock
        private var sequence = 0
        private var arrived = 0.0
        private var stopped = false
        var onEvent: (@Sendable (SourceEvent) -> Void)?
        var shouldStop: (@Sendable () -> Bool)?

        private let pictures: PictureWatch

        init(file: MediaFile, clock: any Clock, pictures: PictureWatch, reopen: @escaping () throws(MediaError) -> MediaFile) {
            self.pictures = pictures
            self.file = file
            self.clock = clock
            self.reopen = reopen
        }

        private var isStopped: Bool { condition.withLock { stopped } }

        func run() {
            while !isStopped {
                guard let current = file else { reconnect(); continue }
                do throws(MediaError) {
                    guard try current.nextFrame(into: decoded) else { throw MediaError.failed("the stream ended") }
                    pictures.saw()
                    condition.withLock {
                        newest.take(decoded)
                        sequence += 1
                        arrived = clock.now()
                        condition.broadcast()
                    }
                } catch {
                    file = nil
                    onEvent?(.lost(reason: pictures.cutOff ? pictures.reason : error.reason, retry: CameraFormat.backoff(try: 1)))
                }
            }
            file = nil
        }

        /// Opens the stream again, waiting longer after each failed try.
        /// Which opening of the stream its pictures now come from (1, and one more a return).
        var opening: Int { condition.withLock { openings } }
        private var openings = 1

        private func reconnect() {
            defer { if file != nil { condition.withLock { openings += 1 } } }
            file = LiveReopening(isStopped: { self.isStopped }, onEvent: onEvent, clock: clock).run {
                () -> Result<(MediaFile, width: Int, height: Int, native: String), LiveReopening.Failure> in
                do throws(MediaError) {
                    let opened = try reopen()
                    return .success((opened, opened.storedWidth, opened.storedHeight, "live"))
                } catch {
                    return .failure(LiveReopening.Failure(reason: error.reason))
                }
            }
        }

        func stop() {
            condition.withLock {
                stopped = true
                condition.broadcast()
            }
        }

        /// Waits for a picture newer than `taken` (in slices, so a stop is noticed); nil on a stop.
        func waitNewer(than taken: Int, into target: DecodedFrame) -> (Int, arrived: Double)? {
            condition.lock()
            defer { condition.unlock() }
            while !stopped {
                if sequence > taken, !newest.isEmpty {
                    target.take(newest)
                    return (sequence, arrived)
                }
                if shouldStop?() == true { return nil }
                _ = condition.wait(slice: 0.2)
            }
            return nil
        }
    }
}

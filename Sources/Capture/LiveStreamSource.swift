import Foundation
import LookCore
import Media

/// A network stream (any URL libavformat opens: rtsp://, http://, udp://, …). A thread of its own
/// reads and decodes all the time, keeping only the newest picture, so the frame the loop takes is
/// always the newest and never a stale one from a backlog.
public final class LiveStreamSource: FrameSource {
    public let info: SourceInfo
    private let url: String
    private let maxSide: Int
    private let clock: any Clock
    private let reader: Reader
    private let scaler = FrameScaler()
    private let current = DecodedFrame()
    private var takenSequence = 0
    /// A stream that sends no new picture for this long has stalled.
    public var stallTimeout: Double

    public init(url: String, maxSide: Int = 448, clock: any Clock = MonotonicClock(), stallTimeout: Double = 10) throws(CaptureError) {
        let file: MediaFile
        do {
            let micros = String(Int(stallTimeout * 1_000_000))
            file = try MediaFile(path: url, options: ["rw_timeout": micros, "timeout": micros])
        } catch {
            throw .unopenableVideo(source: url, reason: error.reason)
        }
        self.url = url
        self.maxSide = maxSide
        self.clock = clock
        self.stallTimeout = stallTimeout
        info = SourceInfo(
            kind: "stream", name: url, width: file.storedWidth, height: file.storedHeight,
            fps: file.fps > 0 ? file.fps : nil, duration: nil, pace: "live")
        reader = Reader(file: file, clock: clock)
        let thread = Thread { [reader] in reader.run() }
        thread.name = "lookd stream reader"
        thread.start()
    }

    deinit { reader.stop() }

    /// A stream cannot stand still: pausing only means the loop takes no frame meanwhile.
    public func pause() {}
    public func resume() {}
    public var position: Double? { nil }

    public func next() throws(CaptureError) -> Frame? {
        let got = reader.waitNewer(than: takenSequence, into: current, timeout: stallTimeout)
        switch got {
        case .frame(let sequence, let arrived):
            takenSequence = sequence
            let w = current.width, h = current.height
            let size = fittedSize(width: w, height: h, maxSide: maxSide)
            do {
                let image = try scaler.rgb(current, width: size.width, height: size.height)
                let now = clock.now()
                return Frame(image: image, captured: now, sourceTime: current.seconds, age: now - arrived, sourceSize: (w, h))
            } catch {
                throw .unreadableVideo(source: url, reason: error.reason)
            }
        case .ended:
            return nil
        case .failed(let reason):
            throw .unreadableVideo(source: url, reason: reason)
        case .stalled:
            throw .streamStalled(source: url, seconds: stallTimeout)
        }
    }

    /// The reading thread's side: the newest picture, under a lock.
    private final class Reader: @unchecked Sendable {
        enum Got { case frame(Int, arrived: Double), ended, failed(String), stalled }

        private let file: MediaFile
        private let clock: any Clock
        private let condition = NSCondition()
        private let newest = DecodedFrame()
        private let decoded = DecodedFrame() // the reading thread's own, moved into `newest` under the lock
        private var sequence = 0
        private var arrived = 0.0
        private var ended = false
        private var failure: String?
        private var stopped = false

        init(file: MediaFile, clock: any Clock) {
            self.file = file
            self.clock = clock
        }

        func run() {
            while true {
                condition.lock(); let stop = stopped; condition.unlock()
                if stop { return }
                do {
                    guard try file.nextFrame(into: decoded) else { finish(nil); return }
                    condition.lock()
                    newest.take(decoded)
                    sequence += 1
                    arrived = clock.now()
                    condition.broadcast()
                    condition.unlock()
                } catch {
                    finish(error.reason)
                    return
                }
            }
        }

        private func finish(_ reason: String?) {
            condition.lock()
            ended = true
            failure = reason
            condition.broadcast()
            condition.unlock()
        }

        func stop() {
            condition.lock(); stopped = true; condition.unlock()
        }

        func waitNewer(than taken: Int, into target: DecodedFrame, timeout: Double) -> Got {
            condition.lock()
            defer { condition.unlock() }
            let deadline = Date().addingTimeInterval(timeout)
            while sequence <= taken || newest.isEmpty {
                if ended { return failure.map { .failed($0) } ?? .ended }
                if !condition.wait(until: deadline) { return .stalled }
            }
            target.take(newest)
            return .frame(sequence, arrived: arrived)
        }
    }
}

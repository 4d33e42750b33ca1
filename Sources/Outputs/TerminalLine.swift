import Foundation
import LookCore
import Platform
import Records

/// What `lookd watch` shows while it runs: on a terminal, one line (a camera) written over after each frame
/// (frames answered, how far through a file or a folder of photos of known length, the latest
/// answers, fires, the model's time a frame); otherwise (a pipe, the journal) the same as a line
/// every `every` frames, and at each tenth of a known length. A line break once the run stops.
public final class TerminalLine: WatchOutput, @unchecked Sendable {
    public let name = "terminal"
    private let isTerminal: Bool
    private let every: Int
    private var shown = false
    private var answered = 0
    private var modelTimes: [Double] = []
    /// The source's length, when it has one: a file's seconds, a folder's photos.
    private var length: (seconds: Double?, photos: Int?)
    /// Off a terminal, each new tenth of a known length is a line too, 10 s of the run apart at least
    /// (a long eval says how far it is; a short run says nothing but its fires).
    private var tenths = 0
    private var lastLine = 0.0
    /// A frame's line is shown at its end, with the fires so far.
    private var frames = FrameJoiner()

    /// Where the lines off a terminal go (the journal).
    private let log: Log

    /// The camera, in a watch of several: its line is its own, named.
    private let camera: CameraName

    public init(isTerminal: Bool, every: Int = 100, log: Log = .shared, camera: CameraName = .only) {
        (self.log, self.camera) = (log, camera)
        self.isTerminal = isTerminal
        self.every = max(1, every)
    }

    public func receive(_ event: WatchEvent) {
        if case .source(let info) = event { length = (info.duration, info.kind == "photos" ? info.count : nil) }
        guard let (frame, _) = frames.take(event), case .frame(_, _, let snapshot) = event else { return }
        show(frame, snapshot)
    }

    private func show(_ frame: FrameOutcome, _ snapshot: WatchSnapshot) {
        answered += 1
        modelTimes.append(frame.model)
        if modelTimes.count > 20 { modelTimes.removeFirst() }
        var line = Self.line(frames: answered, answers: frame.shownAnswers, fires: snapshot.fires, modelTimes: modelTimes)
        if let progress = Self.progress(at: frame.sourceT, index: frame.index, of: length) { line = progress + " · " + line }
        let tenth = Self.tenth(frame.sourceT, frame.index, length)
        if isTerminal {
            // One line a camera, each written over in place, below what the journal says meanwhile.
            StandardStream.error.live(camera.name, camera.lineStart + line)
            shown = true
        } else if answered % every == 0 || (tenth > tenths && frame.captureT >= lastLine + 10) {
            log.notice(line)
            (lastLine, tenths) = (frame.captureT, tenth)
        }
    }

    /// `12 frames · 1. yes 2. no · 3 fires · model 3.10 s a frame`
    static func line(frames: Int, answers: [String], fires: Int, modelTimes: [Double]) -> String {
        let sorted = modelTimes.sorted()
        let median = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        let words = answers.enumerated().map { "\($0.offset + 1). \($0.element)" }.joined(separator: " ")
        return
            "\(frames) frame\(frames == 1 ? "" : "s") · \(words) · \(fires) fire\(fires == 1 ? "" : "s") · model \(NumbersLine.seconds(median)) a frame"
    }

    /// `4.2 of 30.0 s (14 %)` through a file, `12 of 40 photos` through a folder; nil for a live source.
    static func progress(at position: Double?, index: Int, of length: (seconds: Double?, photos: Int?)) -> String? {
        if let total = length.seconds, total > 0, let position {
            return String(format: "%.1f of %.1f s (%.0f %%)", position, total, min(100, 100 * position / total))
        }
        // A folder is read again for new photos once it is through: past its count it has no end.
        if let photos = length.photos, photos > 0, index <= photos { return "\(index) of \(photos) photos" }
        return nil
    }

    static func tenth(_ position: Double?, _ index: Int, _ length: (seconds: Double?, photos: Int?)) -> Int {
        if let total = length.seconds, total > 0, let position { return min(10, Int(10 * position / total)) }
        if let photos = length.photos, photos > 0 { return min(10, 10 * index / photos) }
        return 0
    }

    public func stop() { if shown { StandardStream.error.endLive(camera.name) } }
}

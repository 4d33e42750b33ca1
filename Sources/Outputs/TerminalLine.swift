import Foundation
import LookCore
import Records

/// What `lookd watch` shows while it runs: on a terminal, one line written over after each frame
/// (frames answered, the latest answers, fires, the model's time a frame); otherwise (a pipe, the
/// journal) the same as a line every `every` frames. A line break once the run stops.
public final class TerminalLine: WatchOutput, @unchecked Sendable {
    public let name = "terminal"
    private let isTerminal: Bool
    private let every: Int
    private var shown = false
    private var answered = 0
    private var modelTimes: [Double] = []

    public init(isTerminal: Bool, every: Int = 100) {
        self.isTerminal = isTerminal
        self.every = max(1, every)
    }

    public func receive(_ event: WatchEvent) {
        guard case .frame(let frame, _, let snapshot) = event else { return }
        answered += 1
        modelTimes.append(frame.model)
        if modelTimes.count > 20 { modelTimes.removeFirst() }
        let line = Self.line(frames: answered, answers: frame.shownAnswers, fires: snapshot.fires, modelTimes: modelTimes)
        if isTerminal {
            StandardStream.error.write("\u{1B}[2K\r\(line)")
            shown = true
        } else if answered % every == 0 {
            Log.shared.notice(line)
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

    public func stop() { if shown { StandardStream.error.write("\n") } }
}

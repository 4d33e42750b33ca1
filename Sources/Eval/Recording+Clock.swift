import Foundation
import Rules

extension Recording {
    /// The clock a recording's frames are timed by, which a truth file's spans must be written on.
    public enum Clock: String, Sendable {
        /// A clip's video time (`source_t`): spans in m:ss from the clip's start.
        case video = "video time"
        /// Seconds from the run's start (a run record without video time).
        case run = "seconds from the run's start"
        /// The time of day (a camera's event log): spans as h:mm:ss of the day.
        case day = "the time of day"
    }

    /// The frames' first and last times, in words on the recording's clock.
    public var timeRange: String {
        guard let first = frames.first?.t, let last = frames.last?.t else { return "no frames" }
        return "\(TruthFile.time(first))–\(TruthFile.time(last))"
    }

    /// Why `truth` cannot be scored against this recording: none of its spans falls within the
    /// frames' times (give or take `tolerance`), as when a truth written in the time of day meets a
    /// log timed by video time, or the other way round. Nil when some span does, or there is none.
    public func clockProblem(_ truth: TruthFile, tolerance: Double) -> String? {
        let spans = truth.rules.flatMap(\.spans)
        guard let first = frames.first?.t, let last = frames.last?.t, !spans.isEmpty else { return nil }
        guard !spans.contains(where: { $0.end >= first - tolerance && $0.start <= last + tolerance }) else { return nil }
        let written = "\(TruthFile.time(spans.map(\.start).min()!))–\(TruthFile.time(spans.map(\.end).max()!))"
        let how: String
        switch clock {
        case .video: how = "write the spans in video time, m:ss from the clip's start"
        case .run: how = "write the spans in seconds from the run's start"
        case .day: how = "write the spans as the time of day the things were in view (h:mm:ss)"
        }
        return "the recording is timed by \(clock.rawValue) (\(timeRange)), but no span of \(truth.source) falls in it (they run "
            + "\(written)): the truth is on another clock; \(how)"
    }
}

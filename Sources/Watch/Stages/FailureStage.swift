import LookCore
import Records

/// What the loop does when a frame's model call fails: the frame is recorded as failed and the run
/// goes on, unless `limit` frames in a row fail with a model in-process (so that systemd restarts
/// lookd); a server is asked again with backoff until it answers (one error line, then one when it
/// is back). Between tries the loop waits 1, 2, 4 … 30 s.
struct FailureStage {
    /// Frames in a row whose model call may fail before the run ends with an error.
    static let limit = 5
    let endsRun: Bool
    private(set) var inARow = 0

    /// Counts a failed frame; returns the seconds to wait before the next, or the error that ends the run.
    mutating func failed(frame index: Int, reason: String) throws(WatchError) -> Double {
        inARow += 1
        if endsRun {
            Log.shared.error("frame \(index): the model failed (\(inARow) in a row): \(reason)")
            if inARow >= Self.limit { throw .failedInARow(count: inARow, reason: reason) }
        } else if inARow == 1 {
            Log.shared.error("frame \(index): the engine's server failed: \(reason); asking again with backoff")
        }
        return min(30, Double(1 << min(inARow - 1, 5)))
    }

    /// A frame was answered: the failures before it, if any, are over.
    mutating func answered(frame index: Int) {
        if inARow > 0 {
            Log.shared.notice("frame \(index): \(endsRun ? "the model" : "the engine's server") answers again after \(inARow) failed frames")
        }
        inARow = 0
    }
}

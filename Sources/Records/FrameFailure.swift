import LookCore

/// A frame whose model call failed: the run goes on, and the frame is recorded with the reason
/// (the event log's `frame_failed` line, the run record's `failed` list and summary count).
public struct FrameFailure: Sendable, Equatable {
    /// The frame's number in the run, from 1.
    public var index: Int
    /// Seconds into the run when the call failed.
    public var runT: Double
    /// Which call failed: `model` (the yes/no question) or `place` (a fired rule's place question).
    public var stage: String
    public var reason: String
    /// How many frames in a row have failed, this one included.
    public var inARow: Int

    public init(index: Int, runT: Double, stage: String, reason: String, inARow: Int) {
        self.index = index
        self.runT = runT
        self.stage = stage
        self.reason = reason
        self.inARow = inARow
    }

    public var eventFields: [(String, JSON)] {
        [
            ("frame", .int(index)), ("run_t", .number(runT)), ("stage", .string(stage)),
            ("reason", .string(reason)), ("in_a_row", .int(inARow)),
        ]
    }
}

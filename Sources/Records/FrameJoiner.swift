/// Puts a frame's outcome (`answered`, before its fires) and its end (`frame`) together as the
/// events come, for an output that shows a frame once it is complete (the terminal's line).
public struct FrameJoiner: Sendable {
    private var answered: FrameOutcome?

    public init() {}

    /// The frame `event` completes, with its end, if it completes one.
    public mutating func take(_ event: WatchEvent) -> (outcome: FrameOutcome, end: FrameEnd)? {
        switch event {
        case .answered(let frame): answered = frame
        case .frame(let end, _, _): if let frame = answered, frame.index == end.index { return (frame, end) }
        default: break
        }
        return nil
    }
}

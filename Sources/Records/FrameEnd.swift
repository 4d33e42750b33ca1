import LookCore

/// What came of a frame after its `watch` line (`FrameOutcome`, emitted before its fires): the
/// fires in rule order, each with its hold and its description, as the run record's entry holds
/// them. The loop emits it once, with the frame's picture and the loop's state (`frame`).
public struct FrameEnd: Sendable {
    /// The frame's number in the run, from 1 (its `FrameOutcome`'s).
    public let index: Int
    public let fires: [FireOutcome]

    public init(index: Int, fires: [FireOutcome]) { (self.index, self.fires) = (index, fires) }

    /// Seconds the frame's effects held it, in all.
    public var held: Double { fires.reduce(0) { $0 + ($1.hold?.held ?? 0) } }
}

import LookCore

/// What came of a frame after its `watch` line (`FrameOutcome`, emitted before its fires): the
/// fires in rule order, and by fire number the effects' holds and the descriptions, each emitted
/// once already (`fired`, `held`, `described`). The loop emits it once, with the frame's picture and
/// the loop's state (`frame`); the run record's entries are composed of it.
public struct FrameEnd: Sendable {
    /// The frame's number in the run, from 1 (its `FrameOutcome`'s).
    public let index: Int
    public let fires: [FireOutcome]
    public let holds: [Int: HoldOutcome]
    public let descriptions: [Int: DescribeOutcome]

    public init(index: Int, fires: [FireOutcome], holds: [Int: HoldOutcome] = [:], descriptions: [Int: DescribeOutcome] = [:]) {
        (self.index, self.fires, self.holds, self.descriptions) = (index, fires, holds, descriptions)
    }

    /// The fires with their holds, in rule order, and the descriptions by fire number.
    public init(index: Int, fired: [(fire: FireOutcome, hold: HoldOutcome?)], described: [Int: DescribeOutcome]) {
        let holds = fired.compactMap { entry in entry.hold.map { (entry.fire.number, $0) } }
        self.init(index: index, fires: fired.map(\.fire), holds: Dictionary(uniqueKeysWithValues: holds), descriptions: described)
    }

    /// Seconds the frame's effects held it, in all.
    public var held: Double { holds.values.reduce(0) { $0 + $1.held } }
}

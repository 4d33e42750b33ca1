import Records

/// A complete frame as a test looks at it: its outcome (the `watch` line, `frame.index`,
/// `frame.answers`…) and its end (`frame.fires`), put together from the two events that carry them.
@dynamicMemberLookup
public struct SeenFrame {
    public let outcome: FrameOutcome
    public let end: FrameEnd

    public subscript<T>(dynamicMember key: KeyPath<FrameOutcome, T>) -> T { outcome[keyPath: key] }
    public var fires: [FireOutcome] { end.fires }
}

/// Puts each frame's outcome and end together as the events come.
public struct FrameJoiner {
    private var answered: FrameOutcome?

    public init() {}

    /// The complete frame `event` ends, if it ends one.
    public mutating func take(_ event: WatchEvent) -> SeenFrame? {
        switch event {
        case .answered(let frame): answered = frame
        case .frame(let end, _, _): if let frame = answered, frame.index == end.index { return SeenFrame(outcome: frame, end: end) }
        default: break
        }
        return nil
    }
}

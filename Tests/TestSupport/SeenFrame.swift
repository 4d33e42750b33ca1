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

extension FrameJoiner {
    /// The complete frame `event` ends, as a test looks at it.
    public mutating func seen(_ event: WatchEvent) -> SeenFrame? { take(event).map { SeenFrame(outcome: $0.outcome, end: $0.end) } }
}

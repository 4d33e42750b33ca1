/// What the vision tower did for a picture with its camera's kept results (`--reuse`): the tokens
/// it computed, of all the picture's (over its image parts), whether any part reused kept results,
/// and the bytes the camera keeps. The engine makes it; the frame's outcome and records carry it.
public struct TowerWork: Sendable, Equatable {
    public var computed: Int
    public var tokens: Int
    public var reused: Bool
    public var keptBytes: Int

    public init(computed: Int, tokens: Int, reused: Bool, keptBytes: Int) {
        (self.computed, self.tokens, self.reused, self.keptBytes) = (computed, tokens, reused, keptBytes)
    }
}

/// How a camera's vision tower reuses what it computed for the parts of its picture that did not
/// change (docs/performance.md, "A frame costs what changed"): a token is computed again when its
/// patch moved by more than `threshold` (the mean absolute change of its pixels in the model's
/// normalised units, where 1 is 127.5 of 255 levels: 0.04 is about 5 levels) since it was last computed;
/// the encode is whole when more than `bound` of the tokens moved, and every `refresh` encodes.
public struct TowerReuse: Sendable, Equatable {
    public var threshold: Double
    public var bound: Double
    public var refresh: Int

    public init(threshold: Double = 0.04, bound: Double = 0.5, refresh: Int = 8) {
        (self.threshold, self.bound, self.refresh) = (threshold, bound, refresh)
    }
}

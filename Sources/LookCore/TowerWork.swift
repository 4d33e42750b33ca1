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

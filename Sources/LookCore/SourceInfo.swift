import Foundation

/// A description of an open source (a camera, a video file, a stream, a folder of photos), as the
/// records and the outputs name it.
public struct SourceInfo: Sendable, Codable, Equatable {
    /// `video`, `stream` or `photos`.
    public var kind: String
    public var name: String
    public var width: Int
    public var height: Int
    public var fps: Double?
    public var duration: Double?
    /// How it moves: `realtime`, `frames` (a fixed video-time step) or `hold` (photos).
    public var pace: String
    public var count: Int?

    public init(
        kind: String, name: String, width: Int, height: Int, fps: Double? = nil, duration: Double? = nil,
        pace: String, count: Int? = nil
    ) {
        self.kind = kind
        self.name = name
        self.width = width
        self.height = height
        self.fps = fps
        self.duration = duration
        self.pace = pace
        self.count = count
    }
}

/// What can go wrong taking a picture from a photo, a video, a stream or a camera.
/// Each description is the sentence a user reads.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    /// The photo file does not exist.
    case noPhoto(path: String)
    /// The file exists but no decoder could read a picture from it (`reason` from FFmpeg).
    case unreadablePhoto(path: String, reason: String)

    public var description: String {
        switch self {
        case .noPhoto(let path):
            return "Choose a photo first: \(path) does not exist."
        case .unreadablePhoto(let path, let reason):
            return "Could not read that photo (\(path)): \(reason)."
        }
    }
}

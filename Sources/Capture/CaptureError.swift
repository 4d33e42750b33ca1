/// What can go wrong taking a picture from a photo, a video, a stream or a camera.
/// Each description is the sentence a user reads.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    /// The photo file does not exist.
    case noPhoto(path: String)
    /// The file exists but no decoder could read a picture from it (`reason` from FFmpeg).
    case unreadablePhoto(path: String, reason: String)
    /// A video file or stream that cannot be opened.
    case unopenableVideo(source: String, reason: String)
    /// A video that opened but whose pictures cannot be decoded.
    case unreadableVideo(source: String, reason: String)
    /// A folder with no photo in it.
    case noPhotos(folder: String)
    /// No camera at the path (not plugged in, or another number).
    case cameraMissing(device: String)
    /// The camera exists but this user may not open it.
    case cameraDenied(device: String)
    /// Another program holds the camera.
    case cameraBusy(device: String)
    /// The camera gives no picture lookd can take.
    case cameraNoFormat(device: String, reason: String)
    /// The camera failed while open.
    case cameraFailed(device: String, reason: String)

    public var description: String {
        switch self {
        case .noPhoto(let path):
            return "Choose a photo first: \(path) does not exist."
        case .unreadablePhoto(let path, let reason):
            return "Could not read that photo (\(path)): \(reason)."
        case .unopenableVideo(let source, let reason):
            return "Could not open that video (\(source)): \(reason)."
        case .unreadableVideo(let source, let reason):
            return "Could not read that video (\(source)): \(reason)."
        case .noPhotos(let folder):
            return "There are no photos in \(folder) (JPEG, PNG or WebP files)."
        case .cameraMissing(let device):
            return "No camera at \(device): the device does not exist (is it plugged in? v4l2-ctl --list-devices lists the cameras)."
        case .cameraDenied(let device):
            return "Camera access is off: add the service's user to the video group (\(device): permission denied)."
        case .cameraBusy(let device):
            return "The camera \(device) is busy: another program is using it."
        case .cameraNoFormat(let device, let reason):
            return "The camera \(device) gives no picture lookd can use: \(reason)."
        case .cameraFailed(let device, let reason):
            return "The camera \(device) failed: \(reason)."
        }
    }
}

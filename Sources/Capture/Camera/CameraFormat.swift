import Foundation

/// The camera's size, and how often to try a lost camera again. Pure, so it is tested exactly.
public enum CameraFormat {
    /// The largest size whose long side is at most `maxSide`; when every size is larger, the smallest.
    public static func choose(sizes: [(Int, Int)], maxSide: Int) -> (Int, Int) {
        let usable = sizes.filter { $0.0 > 0 && $0.1 > 0 }
        let area = { (s: (Int, Int)) in s.0 * s.1 }
        if let best = usable.filter({ max($0.0, $0.1) <= maxSide }).max(by: { area($0) < area($1) }) { return best }
        return usable.min(by: { area($0) < area($1) }) ?? (640, 480)
    }

    /// Seconds to wait before try `n` (1, 2, …) to reopen a lost camera: 0.5 s, doubling, at most 10 s.
    public static func backoff(try n: Int) -> Double {
        min(10, 0.5 * pow(2, Double(max(0, n - 1))))
    }
}

/// The camera's errors as sentences.
enum CameraErrors {
    static func open(_ path: String, errno code: Int32) -> CaptureError {
        switch code {
        case ENOENT, ENODEV, ENXIO: return .cameraMissing(device: path)
        case EACCES, EPERM: return .cameraDenied(device: path)
        case EBUSY: return .cameraBusy(device: path)
        case ENOTTY, EINVAL: return .cameraFailed(device: path, reason: "it is not a V4L2 device (\(String(cString: strerror(code))))")
        default: return .cameraFailed(device: path, reason: String(cString: strerror(code)))
        }
    }

    static func failed(_ path: String, _ reason: String) -> CaptureError { .cameraFailed(device: path, reason: reason) }
}

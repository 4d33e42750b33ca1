import Foundation
import LookCore
import Media

/// Opens what `--source` names: a folder of photos, a URL (a stream), a camera device or a video file.
public enum SourceOpener {
    public struct Options: Sendable {
        public var pace: VideoFileSource.Pace = .realtime
        /// Seconds each photo of a folder stays on (0: the next photo every frame).
        public var photoSeconds: Double = 4.5
        /// The long side of the frames the model gets.
        public var maxSide: Int = 448
        /// The largest picture asked of a camera (its long side); lookd takes the camera's own size up to it.
        public var cameraMaxSide: Int = 1280
        /// Where a video, a stream or a camera keeps what its clips are cut from (`--clips`); nil: no clips.
        public var clips: ClipFeed?
        /// How long an open may take before the run goes on without it (a pipe with no writer, a
        /// stalled mount): the source is then waited for as a lost camera is (`AwaitedSource`).
        public var openSeconds: Double = 10
        public init() {}
    }

    /// Whether `spec` names a camera (`/dev/…`) or a stream URL (not `file://`): a source that can go
    /// away and come back, rather than a file or a folder.
    public static func isLive(_ spec: String) -> Bool {
        spec.hasPrefix("/dev/") || (spec.contains("://") && !spec.hasPrefix("file://"))
    }

    /// Opens `spec`; with `awaitLive`, a camera or stream that cannot be opened yet is waited for
    /// (`AwaitedSource`) instead of refused: the service's way. An open that takes longer than
    /// `options.openSeconds` never holds up the caller: the source is waited for as a lost one
    /// (`AwaitedSource`), its open going on meanwhile.
    public static func open(_ spec: String, options: Options = Options(), clock: any Clock, awaitLive: Bool)
        throws(CaptureError) -> any FrameSource
    {
        let live = isLive(spec)
        let attempt = { @Sendable () throws(CaptureError) -> any FrameSource in try open(spec, options: options, clock: clock) }
        let pending = PendingOpen(attempt)
        let kind = spec.hasPrefix("/dev/") ? "camera" : live ? "stream" : "video"
        switch pending.wait(upTo: options.openSeconds, clock: clock) {
        case .success(let source)?:
            return source
        case .failure(let error)?:
            guard awaitLive, live else { throw error }
            return AwaitedSource(kind: kind, name: spec, failure: error.description, expectedSide: options.maxSide, clock: clock, open: attempt)
        case nil:
            return AwaitedSource(
                kind: kind, name: spec, start: .pending(pending, limit: options.openSeconds), expectedSide: options.maxSide, clock: clock,
                open: attempt)
        }
    }

    public static func open(_ spec: String, options: Options = Options(), clock: any Clock) throws(CaptureError) -> any FrameSource {
        if spec.hasPrefix("/dev/") {
            return try CameraSource(
                device: spec, cameraMaxSide: options.cameraMaxSide, maxSide: options.maxSide, clock: clock, clips: options.clips)
        }
        if spec.hasPrefix("file://") {
            return try video(String(spec.dropFirst(7)), options: options, clock: clock)
        }
        if spec.contains("://") {
            return try LiveStreamSource(url: spec, maxSide: options.maxSide, clock: clock, clips: options.clips)
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: spec, isDirectory: &isDirectory), isDirectory.boolValue {
            return try PhotoFolderSource(folder: spec, hold: options.photoSeconds, maxSide: options.maxSide, clock: clock)
        }
        return try video(spec, options: options, clock: clock)
    }

    private static func video(_ path: String, options: Options, clock: any Clock) throws(CaptureError) -> VideoFileSource {
        let source = try VideoFileSource(path: path, pace: options.pace, maxSide: options.maxSide, clock: clock)
        options.clips?.useFile(path) // a file holds its own seconds before and after a fire
        return source
    }
}

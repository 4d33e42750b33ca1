internal import CFFmpeg

/// A decoded picture kept past the decoder's next call (an AVFrame reference of its own).
public final class DecodedFrame {
    let frame: UnsafeMutablePointer<AVFrame>
    /// Seconds into the stream.
    public private(set) var seconds: Double = 0
    public private(set) var isEmpty = true
    /// The picture's size as decoded.
    public var width: Int { Int(frame.pointee.width) }
    public var height: Int { Int(frame.pointee.height) }

    public init() {
        frame = av_frame_alloc()!
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Takes over the picture in `source` (which is left empty).
    func take(_ source: UnsafeMutablePointer<AVFrame>, seconds: Double) {
        av_frame_unref(frame)
        av_frame_move_ref(frame, source)
        self.seconds = seconds
        isEmpty = false
    }

    /// Moves the picture of `other` here.
    public func take(_ other: DecodedFrame) {
        take(other.frame, seconds: other.seconds)
        other.isEmpty = true
    }

    public func clear() {
        av_frame_unref(frame)
        isEmpty = true
    }
}

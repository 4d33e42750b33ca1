import CFFmpeg

/// A decoded picture kept past the decoder's next call (an AVFrame reference of its own).
final class DecodedFrame {
    let frame: UnsafeMutablePointer<AVFrame>
    private(set) var seconds: Double = 0
    private(set) var isEmpty = true

    init() {
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
    func take(_ other: DecodedFrame) {
        take(other.frame, seconds: other.seconds)
        other.isEmpty = true
    }

    func clear() {
        av_frame_unref(frame)
        isEmpty = true
    }
}

internal import CFFmpeg
import LookCore

/// An FFmpeg frame of RGB24 pixels of one size, for the encoders: pictures are copied in row by row
/// (FFmpeg's rows may be padded past `width * 3`).
final class RGBFrame {
    let frame: UnsafeMutablePointer<AVFrame>
    let width: Int
    let height: Int

    init(width: Int, height: Int) throws(MediaError) {
        guard let frame = av_frame_alloc() else { throw .failed("out of memory") }
        self.frame = frame
        self.width = width
        self.height = height
        frame.pointee.width = Int32(width)
        frame.pointee.height = Int32(height)
        frame.pointee.format = AV_PIX_FMT_RGB24.rawValue
        guard av_frame_get_buffer(frame, 0) >= 0 else { throw .failed("out of memory") }
    }

    deinit {
        var f: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&f)
    }

    /// Copies `image` (of this frame's size) in, after making the buffer writable.
    func fill(from image: RGBImage) throws(MediaError) {
        guard av_frame_make_writable(frame) >= 0, let dst = frame.pointee.data.0 else { throw .failed("out of memory") }
        let stride = Int(frame.pointee.linesize.0)
        image.pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                (dst + y * stride).update(from: src.baseAddress! + y * width * 3, count: width * 3)
            }
        }
    }
}

internal import CFFmpeg
import LookCore

/// A camera's pictures kept for clips as JPEG (FFmpeg's MJPEG encoder, opened once for the
/// camera's size): a 640 × 480 picture in a few tens of kilobytes and a few milliseconds, so the
/// last seconds fit in little memory at the camera's own rate (thinned to 15 a second).
public final class PictureCompressor {
    private let encoder: CodecContext
    private let rgb: RGBFrame
    private let yuv: Picture
    private let packetHandle: Packet
    private let converter = YUVConverter(fullRange: true)
    public let width: Int
    public let height: Int

    /// For pictures of `width` × `height`; `quality` is FFmpeg's qscale, 2 (best) to 31 (smallest).
    public init(width: Int, height: Int, quality: Int = 5) throws(MediaError) {
        (self.width, self.height) = (width, height)
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG) else { throw .failed("this FFmpeg has no JPEG encoder") }
        encoder = try CodecContext(codec)
        rgb = try RGBFrame(width: width, height: height)
        yuv = try Picture()
        packetHandle = try Packet()
        let c = encoder.pointer
        (c.pointee.width, c.pointee.height) = (Int32(width), Int32(height))
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.color_range = AVCOL_RANGE_JPEG
        c.pointee.time_base = AVRational(num: 1, den: 30)
        c.pointee.flags |= AV_CODEC_FLAG_QSCALE
        c.pointee.thread_count = 1
        guard avcodec_open2(c, codec, nil) >= 0 else { throw .failed("the JPEG encoder did not open") }
        let f = yuv.pointer
        (f.pointee.width, f.pointee.height, f.pointee.format) = (Int32(width), Int32(height), AV_PIX_FMT_YUV420P.rawValue)
        f.pointee.color_range = AVCOL_RANGE_JPEG
        f.pointee.quality = Int32(quality) * FF_QP2LAMBDA
        guard av_frame_get_buffer(f, 0) >= 0 else { throw .failed("out of memory") }
    }

    /// The JPEG bytes of `image` (of the size given at the start).
    public func jpeg(_ image: RGBImage) throws(MediaError) -> [UInt8] {
        guard image.width == width, image.height == height else { throw .failed("the picture's size changed") }
        try rgb.fill(from: image)
        guard av_frame_make_writable(yuv.pointer) >= 0 else { throw .failed("out of memory") }
        try converter.convert(rgb.frame, into: yuv.pointer)
        let packet = packetHandle.pointer
        guard avcodec_send_frame(encoder.pointer, yuv.pointer) >= 0, avcodec_receive_packet(encoder.pointer, packet) >= 0 else {
            throw .failed("the JPEG encoder failed")
        }
        defer { av_packet_unref(packet) }
        return [UInt8](UnsafeBufferPointer(start: packet.pointee.data, count: Int(packet.pointee.size)))
    }
}

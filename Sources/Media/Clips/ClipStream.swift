internal import CFFmpeg
import LookCore

/// One compressed picture kept for a clip: its bytes, its times in the source (seconds, on the
/// clock the source's frames carry), and whether a decoder can start at it (a keyframe).
public struct ClipPacket: Sendable {
    public var data: [UInt8]
    public var pts: Double
    public var dts: Double
    public var key: Bool

    public init(data: [UInt8], pts: Double, dts: Double? = nil, key: Bool) {
        (self.data, self.pts, self.dts, self.key) = (data, pts, dts ?? pts, key)
    }
}

/// What a clip's packets are: their codec and its parameters (an `AVCodecParameters` of its own).
/// H.264 goes into the MP4 as it is; any other codec (a camera's MJPEG or raw pictures, a file's
/// MPEG-4) is decoded and encoded with libx264 when the clip is written.
public final class ClipStream: @unchecked Sendable {
    let parameters: UnsafeMutablePointer<AVCodecParameters>
    public let width: Int
    public let height: Int

    init(copying source: UnsafePointer<AVCodecParameters>) throws(MediaError) {
        guard let made = avcodec_parameters_alloc() else { throw .failed("out of memory") }
        parameters = made
        guard avcodec_parameters_copy(made, source) >= 0 else { throw .failed("out of memory") }
        (width, height) = (Int(made.pointee.width), Int(made.pointee.height))
    }

    /// A camera's pictures kept as JPEG (`PictureCompressor`), one a packet, each a keyframe.
    public init(mjpegWidth width: Int, height: Int) throws(MediaError) {
        guard let made = avcodec_parameters_alloc() else { throw .failed("out of memory") }
        parameters = made
        made.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        made.pointee.codec_id = AV_CODEC_ID_MJPEG
        made.pointee.width = Int32(width)
        made.pointee.height = Int32(height)
        (self.width, self.height) = (width, height)
    }

    /// Pictures as lookd takes them from a camera: RGB24 (libv4l converts the camera's own format),
    /// one picture a packet, each a keyframe.
    public init(rgbWidth width: Int, height: Int) throws(MediaError) {
        guard let made = avcodec_parameters_alloc() else { throw .failed("out of memory") }
        parameters = made
        made.pointee.codec_type = AVMEDIA_TYPE_VIDEO
        made.pointee.codec_id = AV_CODEC_ID_RAWVIDEO
        made.pointee.format = AV_PIX_FMT_RGB24.rawValue
        made.pointee.width = Int32(width)
        made.pointee.height = Int32(height)
        (self.width, self.height) = (width, height)
    }

    /// Whether its packets are whole raw pictures (kept thinned, to fit the budget).
    public var isRaw: Bool { parameters.pointee.codec_id == AV_CODEC_ID_RAWVIDEO }

    deinit {
        var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&p)
    }

    /// Whether its packets go into the MP4 as they are (H.264), not encoded again.
    public var copies: Bool { parameters.pointee.codec_id == AV_CODEC_ID_H264 }
    /// The codec's short name (`h264`, `mjpeg`, `rawvideo`).
    public var codec: String { String(cString: avcodec_get_name(parameters.pointee.codec_id)) }

    /// Whether packets of `other` can go into one clip with this one's: the same codec, pixel
    /// format and size, and the same codec header (an H.264 camera's parameter sets), so that one
    /// header decodes both.
    public func takesPackets(of other: ClipStream) -> Bool {
        let (a, b) = (parameters.pointee, other.parameters.pointee)
        guard a.codec_id == b.codec_id, a.format == b.format, (width, height) == (other.width, other.height),
            a.extradata_size == b.extradata_size
        else { return false }
        return a.extradata_size == 0 || memcmp(a.extradata, b.extradata, Int(a.extradata_size)) == 0
    }
}

/// A clip's makings: the packets from a keyframe at or before its start to its end, and their stream.
public struct ClipMaterial: Sendable {
    public var stream: ClipStream
    public var packets: [ClipPacket]
    /// Where the clip was asked to start (seconds in the source): the packets begin on the keyframe
    /// at or before it, and the clip is made to start here (`ClipWriter`).
    public var from: Double?

    public init(stream: ClipStream, packets: [ClipPacket], from: Double? = nil) {
        (self.stream, self.packets, self.from) = (stream, packets, from)
    }
}

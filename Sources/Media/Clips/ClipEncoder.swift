internal import CFFmpeg
import Foundation
import LookCore

/// Encodes a clip's pictures that are not H.264 (a camera's MJPEG or raw pictures, a file's other
/// codecs) as H.264 yuv420p with libx264, at a size and a rate two cores afford: the packets are
/// decoded, scaled to `maxSide` at most, thinned to `fps` at most, and encoded on one thread.
final class ClipEncoder {
    private let decoder: CodecContext
    private let decoded: Picture
    private let scaled: Picture
    private let converter = YUVConverter()
    private let packetHandle: Packet
    private var encoder: CodecContext?
    private var muxer: ClipMuxer?
    private let path: String
    private let maxSide: Int
    private let fps: Double
    /// Milliseconds: the ticks of the decoder's and the encoder's times.
    private static let ticks = AVRational(num: 1, den: 1000)
    private var origin: Int64?
    private var lastKept: Int64?
    private(set) var frames = 0
    private(set) var first: Int64?
    private(set) var last: Int64?

    /// The clip's asked start (milliseconds): pictures before it are decoded (the decoder needs
    /// them from the keyframe on) and not encoded.
    private let from: Int64?

    init(stream: ClipStream, path: String, maxSide: Int, fps: Double, from: Double? = nil) throws(MediaError) {
        (self.path, self.maxSide, self.fps, self.from) = (path, maxSide, fps, from.map { Int64(($0 * 1000).rounded()) })
        guard let codec = avcodec_find_decoder(stream.parameters.pointee.codec_id) else {
            throw .failed("this FFmpeg cannot decode \(stream.codec)")
        }
        decoder = try CodecContext(codec)
        decoded = try Picture()
        scaled = try Picture()
        packetHandle = try Packet()
        let ctx = decoder.pointer
        guard avcodec_parameters_to_context(ctx, stream.parameters) >= 0 else { throw .failed("out of memory") }
        ctx.pointee.pkt_timebase = Self.ticks
        ctx.pointee.thread_count = 1
        let rc = avcodec_open2(ctx, codec, nil)
        guard rc >= 0 else { throw .failed("the \(stream.codec) decoder did not open (\(FFmpegLogging.describe(rc)))") }
    }

    /// Decodes one packet and encodes what comes of it.
    func add(_ packet: ClipPacket) throws(MediaError) {
        let p = packetHandle.pointer
        guard av_new_packet(p, Int32(packet.data.count)) >= 0 else { throw .failed("out of memory") }
        packet.data.withUnsafeBufferPointer { p.pointee.data.update(from: $0.baseAddress!, count: packet.data.count) }
        p.pointee.pts = Int64((packet.pts * 1000).rounded())
        p.pointee.dts = Int64((packet.dts * 1000).rounded())
        p.pointee.flags = packet.key ? AV_PKT_FLAG_KEY : 0
        let sent = avcodec_send_packet(decoder.pointer, p)
        av_packet_unref(p)
        // A damaged picture is left out, not the clip.
        if sent < 0 && sent != cffmpeg_averror_eagain() { return }
        try receiveDecoded()
    }

    /// Flushes the decoder and the encoder, and finishes the file; its size.
    func finish() throws(MediaError) -> Int {
        avcodec_send_packet(decoder.pointer, nil)
        try receiveDecoded()
        guard let encoder, let muxer else { throw .failed("no picture of the clip could be decoded") }
        try drain(encoder, muxer, flush: true)
        return try muxer.finish()
    }

    private func receiveDecoded() throws(MediaError) {
        let frame = decoded.pointer
        while avcodec_receive_frame(decoder.pointer, frame) >= 0 {
            defer { av_frame_unref(frame) }
            let stamp = frame.pointee.best_effort_timestamp != Int64.min ? frame.pointee.best_effort_timestamp : frame.pointee.pts
            guard stamp != Int64.min, stamp >= from ?? .min else { continue }
            if let lastKept, Double(stamp - lastKept) < 1000 / fps - 1 { continue }
            lastKept = stamp
            try encode(frame, at: stamp)
        }
    }

    private func encode(_ frame: UnsafeMutablePointer<AVFrame>, at stamp: Int64) throws(MediaError) {
        let (encoder, muxer) = try opened(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let out = scaled.pointer
        guard av_frame_make_writable(out) >= 0 else { throw .failed("out of memory") }
        try converter.convert(frame, into: out)
        let origin = self.origin ?? stamp
        self.origin = origin
        out.pointee.pts = stamp - origin
        first = first ?? stamp
        last = stamp
        frames += 1
        guard avcodec_send_frame(encoder.pointer, out) >= 0 else { throw .failed("the H.264 encoder failed") }
        try drain(encoder, muxer, flush: false)
    }

    /// The encoder and the file, made at the first picture (its size decides theirs).
    private func opened(width: Int, height: Int) throws(MediaError) -> (CodecContext, ClipMuxer) {
        if let encoder, let muxer { return (encoder, muxer) }
        guard let codec = avcodec_find_encoder_by_name("libx264") ?? avcodec_find_encoder(AV_CODEC_ID_H264) else {
            throw .failed("this FFmpeg has no H.264 encoder (libx264)")
        }
        let made = try CodecContext(codec)
        let c = made.pointer
        let size = fittedSize(width: width, height: height, maxSide: maxSide)
        (c.pointee.width, c.pointee.height) = (Int32(size.width & ~1), Int32(size.height & ~1))
        c.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        c.pointee.time_base = Self.ticks
        c.pointee.framerate = AVRational(num: Int32(fps.rounded()), den: 1)
        c.pointee.gop_size = Int32(fps.rounded()) * 2
        c.pointee.max_b_frames = 0
        c.pointee.thread_count = 1
        if ClipMuxer.wantsGlobalHeader { c.pointee.flags |= Int32(AV_CODEC_FLAG_GLOBAL_HEADER) }
        av_opt_set(c.pointee.priv_data, "preset", "veryfast", 0)
        av_opt_set(c.pointee.priv_data, "crf", "26", 0)
        let rc = avcodec_open2(c, codec, nil)
        guard rc >= 0 else { throw .failed("the H.264 encoder did not open (\(FFmpegLogging.describe(rc)))") }
        let out = scaled.pointer
        (out.pointee.width, out.pointee.height, out.pointee.format) = (c.pointee.width, c.pointee.height, AV_PIX_FMT_YUV420P.rawValue)
        guard av_frame_get_buffer(out, 0) >= 0 else { throw .failed("out of memory") }
        guard let parameters = avcodec_parameters_alloc() else { throw .failed("out of memory") }
        defer {
            var p: UnsafeMutablePointer<AVCodecParameters>? = parameters
            avcodec_parameters_free(&p)
        }
        avcodec_parameters_from_context(parameters, c)
        let muxer = try ClipMuxer(path: path, parameters: parameters, ticks: Self.ticks)
        (encoder, self.muxer) = (made, muxer)
        return (made, muxer)
    }

    private func drain(_ encoder: CodecContext, _ muxer: ClipMuxer, flush: Bool) throws(MediaError) {
        if flush { avcodec_send_frame(encoder.pointer, nil) }
        let p = packetHandle.pointer
        while avcodec_receive_packet(encoder.pointer, p) >= 0 {
            // Each picture lasts its frame's time, the last one too (else the MP4's edit list ends before it).
            if p.pointee.duration <= 0 { p.pointee.duration = Int64((1000 / fps).rounded()) }
            try muxer.write(p)
        }
    }
}

/// Converts decoded pictures to yuv420p at the target's size (an `SwsContext` of its own): limited
/// range for H.264, full range for JPEG.
final class YUVConverter {
    private var context: OpaquePointer?
    private let fullRange: Bool

    init(fullRange: Bool = false) {
        self.fullRange = fullRange
        FFmpegLogging.quiet()
    }

    func convert(_ source: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>) throws(MediaError) {
        let s = source.pointee, t = target.pointee
        context = sws_getCachedContext(
            context, s.width, s.height, AVPixelFormat(rawValue: s.format), t.width, t.height, AV_PIX_FMT_YUV420P, Int32(SWS_BILINEAR), nil,
            nil, nil)
        guard let context else { throw .failed("cannot convert its pixel format") }
        if fullRange {
            let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
            sws_setColorspaceDetails(context, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16)
        }
        let rows = withUnsafePointer(to: source.pointee.data) { sourceData in
            sourceData.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                withUnsafePointer(to: source.pointee.linesize) { sourceLines in
                    sourceLines.withMemoryRebound(to: Int32.self, capacity: 8) { srcStride in
                        withUnsafeMutablePointer(to: &target.pointee.data) { targetData in
                            targetData.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
                                withUnsafePointer(to: target.pointee.linesize) { targetLines in
                                    targetLines.withMemoryRebound(to: Int32.self, capacity: 8) { dstStride in
                                        sws_scale(context, src, srcStride, 0, s.height, dst, dstStride)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard rows > 0 else { throw .failed("could not convert the picture") }
    }

    deinit { sws_freeContext(context) }
}

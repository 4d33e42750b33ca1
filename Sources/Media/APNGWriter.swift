internal import CFFmpeg
import Foundation
import LookCore
import Platform

/// Writes pictures of one size as an animated PNG with FFmpeg's APNG encoder and muxer: a held
/// frame's edit, frame by frame. The file is written beside its name and moved in place at the end,
/// so a reader never sees half of one.
public final class APNGWriter {
    private let path: String
    private let partial: PartialFile
    private let width: Int
    private let height: Int
    private let muxer: OutputFormat
    private let encoder: CodecContext
    private let file: OutputFile
    private let stream: UnsafeMutablePointer<AVStream>
    private let frame: RGBFrame
    private let packetHandle: Packet
    private var format: UnsafeMutablePointer<AVFormatContext> { muxer.pointer }
    private var codec: UnsafeMutablePointer<AVCodecContext> { encoder.pointer }
    private var packet: UnsafeMutablePointer<AVPacket> { packetHandle.pointer }
    private var index: Int64 = 0

    /// Opens `path` for pictures of `width` × `height` shown `fps` a second, played round and round.
    public init(path: String, width: Int, height: Int, fps: Int) throws(PNGWriter.Failure) {
        self.path = path
        self.width = width
        self.height = height
        do {
            partial = try PartialFile(path)
            packetHandle = try Packet()
            frame = try RGBFrame(width: width, height: height)
            muxer = try OutputFormat(format: "apng", path: partial.writingPath)
        } catch {
            throw PNGWriter.Failure(path: path, reason: error.reason)
        }
        let ctx = muxer.pointer
        guard let encoder = avcodec_find_encoder(AV_CODEC_ID_APNG) else {
            throw PNGWriter.Failure(path: path, reason: "this FFmpeg has no APNG encoder")
        }
        do { self.encoder = try CodecContext(encoder) } catch { throw PNGWriter.Failure(path: path, reason: error.reason) }
        let c = self.encoder.pointer
        c.pointee.width = Int32(width)
        c.pointee.height = Int32(height)
        c.pointee.pix_fmt = AV_PIX_FMT_RGB24
        c.pointee.time_base = AVRational(num: 1, den: Int32(fps))
        c.pointee.framerate = AVRational(num: Int32(fps), den: 1)
        guard avcodec_open2(c, encoder, nil) >= 0, let s = avformat_new_stream(ctx, nil) else {
            throw PNGWriter.Failure(path: path, reason: "the APNG encoder did not open")
        }
        stream = s
        s.pointee.time_base = c.pointee.time_base
        avcodec_parameters_from_context(s.pointee.codecpar, c)
        do { file = try OutputFile(muxer, path: partial.writingPath) } catch { throw PNGWriter.Failure(path: path, reason: error.reason) }
        var options: OpaquePointer?
        av_dict_set(&options, "plays", "0", 0)
        defer { av_dict_free(&options) }
        guard avformat_write_header(ctx, &options) >= 0 else { throw PNGWriter.Failure(path: path, reason: "the APNG header failed") }
    }

    /// Adds the next picture (the size given at the start).
    public func add(_ image: RGBImage) throws(PNGWriter.Failure) {
        precondition(image.width == width && image.height == height, "every picture of an animation has one size")
        do { try frame.fill(from: image) } catch { throw PNGWriter.Failure(path: path, reason: error.reason) }
        frame.frame.pointee.pts = index
        index += 1
        try send(frame.frame)
    }

    /// Ends the animation and puts the file in place.
    public func finish() throws(PNGWriter.Failure) {
        try send(nil)
        let trailer = av_write_trailer(format)
        guard trailer >= 0 else {
            throw PNGWriter.Failure(path: path, reason: "the APNG trailer was not written (\(FFmpegLogging.describe(trailer)))")
        }
        // Closing flushes the last bytes: a full disk shows here.
        let closed = file.close()
        guard closed >= 0 else { throw PNGWriter.Failure(path: path, reason: "the file was not completed (\(FFmpegLogging.describe(closed)))") }
        do { try partial.place() } catch { throw PNGWriter.Failure(path: path, reason: error.reason) }
    }

    private func send(_ frame: UnsafeMutablePointer<AVFrame>?) throws(PNGWriter.Failure) {
        guard avcodec_send_frame(codec, frame) >= 0 else {
            throw PNGWriter.Failure(path: path, reason: "the APNG encoder failed")
        }
        while avcodec_receive_packet(codec, packet) >= 0 {
            av_packet_rescale_ts(packet, codec.pointee.time_base, stream.pointee.time_base)
            packet.pointee.stream_index = stream.pointee.index
            let written = av_interleaved_write_frame(format, packet)
            av_packet_unref(packet)
            guard written >= 0 else { throw PNGWriter.Failure(path: path, reason: "writing failed (\(FFmpegLogging.describe(written)))") }
        }
    }
}

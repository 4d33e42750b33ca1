internal import CFFmpeg
import Foundation
import LookCore
import Platform

/// One H.264 video stream written as MP4 with its index at the front (`movflags +faststart`: a
/// phone, a browser or Home Assistant plays it before it has all of it). The file is written
/// beside its name and moved in place at the end (`PartialFile`), so no half clip is ever found
/// under its name.
final class ClipMuxer {
    private let partial: PartialFile
    private let muxer: OutputFormat
    private let file: OutputFile
    private let stream: UnsafeMutablePointer<AVStream>
    private let packetHandle: Packet
    /// The time base the caller's ticks are in.
    private let ticks: AVRational

    /// Whether the MP4 muxer wants an encoder's headers in its parameters, not in the stream.
    static var wantsGlobalHeader: Bool {
        guard let format = av_guess_format("mp4", nil, nil) else { return true }
        return format.pointee.flags & AVFMT_GLOBALHEADER != 0
    }

    /// Opens `path` for a stream with `parameters` (the source's, or an encoder's), whose packets
    /// come with times in `ticks`.
    init(path: String, parameters: UnsafePointer<AVCodecParameters>, ticks: AVRational) throws(MediaError) {
        partial = try PartialFile(path)
        self.ticks = ticks
        packetHandle = try Packet()
        muxer = try OutputFormat(format: "mp4", path: partial.writingPath)
        guard let s = avformat_new_stream(muxer.pointer, nil) else { throw .failed("out of memory") }
        stream = s
        guard avcodec_parameters_copy(s.pointee.codecpar, parameters) >= 0 else { throw .failed("out of memory") }
        s.pointee.codecpar.pointee.codec_tag = 0
        s.pointee.time_base = ticks
        file = try OutputFile(muxer, path: partial.writingPath)
        var options: OpaquePointer?
        av_dict_set(&options, "movflags", "+faststart", 0)
        defer { av_dict_free(&options) }
        let rc = avformat_write_header(muxer.pointer, &options)
        guard rc >= 0 else { throw .failed("the MP4 header was not written (\(FFmpegLogging.describe(rc)))") }
    }

    /// Writes one packet of `bytes` with its times in the caller's ticks.
    func write(_ bytes: [UInt8], pts: Int64, dts: Int64, duration: Int64, key: Bool) throws(MediaError) {
        let packet = packetHandle.pointer
        guard av_new_packet(packet, Int32(bytes.count)) >= 0 else { throw .failed("out of memory") }
        bytes.withUnsafeBufferPointer { packet.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        (packet.pointee.pts, packet.pointee.dts, packet.pointee.duration) = (pts, dts, duration)
        packet.pointee.flags = key ? AV_PKT_FLAG_KEY : 0
        try write(packet)
    }

    /// Writes an encoder's packet (its times in the caller's ticks); the packet is left empty.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(MediaError) {
        packet.pointee.stream_index = stream.pointee.index
        av_packet_rescale_ts(packet, ticks, stream.pointee.time_base)
        let rc = av_interleaved_write_frame(muxer.pointer, packet)
        av_packet_unref(packet)
        guard rc >= 0 else { throw .failed("writing failed (\(FFmpegLogging.describe(rc)))") }
    }

    /// Writes the index (moved to the front), closes the file and puts it in place; its size.
    func finish() throws(MediaError) -> Int {
        let trailer = av_write_trailer(muxer.pointer)
        guard trailer >= 0 else { throw .failed("the MP4 index was not written (\(FFmpegLogging.describe(trailer)))") }
        // Closing flushes the last bytes: a full disk shows here.
        let closed = file.close()
        guard closed >= 0 else { throw .failed("the file was not completed (\(FFmpegLogging.describe(closed)))") }
        let size = partial.size
        try partial.place()
        return size
    }
}

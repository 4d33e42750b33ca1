internal import CFFmpeg
import Foundation

/// Decodes a sound file (Ogg Vorbis, WAV, AAC, …) into 48 kHz mono 16-bit samples with FFmpeg's
/// libavformat, libavcodec and libswresample.
public enum AudioDecoder {
    public static let rate = 48_000

    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "Could not read the sound \(path): \(reason)." }
    }

    public static func decode(path: String) throws(Failure) -> AudioClip {
        FFmpegLogging.quiet()
        var format: UnsafeMutablePointer<AVFormatContext>?
        guard avformat_open_input(&format, path, nil, nil) >= 0, let fmt = format else {
            throw Failure(path: path, reason: FileManager.default.fileExists(atPath: path) ? "not a sound file" : "there is no such file")
        }
        defer { avformat_close_input(&format) }
        guard avformat_find_stream_info(fmt, nil) >= 0 else { throw Failure(path: path, reason: "not a sound file") }
        var codec: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0)
        guard index >= 0, let codec, let stream = fmt.pointee.streams[Int(index)] else {
            throw Failure(path: path, reason: "it holds no sound")
        }
        var context = avcodec_alloc_context3(codec)
        defer { avcodec_free_context(&context) }
        guard let ctx = context, avcodec_parameters_to_context(ctx, stream.pointee.codecpar) >= 0,
            avcodec_open2(ctx, codec, nil) >= 0
        else { throw Failure(path: path, reason: "its sound cannot be decoded") }

        var outLayout = AVChannelLayout()
        av_channel_layout_default(&outLayout, 1)
        var resampler: OpaquePointer?
        guard
            swr_alloc_set_opts2(
                &resampler, &outLayout, AV_SAMPLE_FMT_S16, Int32(rate),
                &ctx.pointee.ch_layout, ctx.pointee.sample_fmt, ctx.pointee.sample_rate, 0, nil) >= 0,
            swr_init(resampler) >= 0
        else { throw Failure(path: path, reason: "its sound cannot be converted") }
        defer { swr_free(&resampler) }

        var packet = av_packet_alloc()
        var frame = av_frame_alloc()
        defer { av_packet_free(&packet); av_frame_free(&frame) }
        var samples: [Int16] = []
        func drain() {
            while avcodec_receive_frame(ctx, frame) >= 0 {
                let inCount = Int(frame!.pointee.nb_samples)
                let room = Int(swr_get_out_samples(resampler, Int32(inCount)))
                var buffer = [Int16](repeating: 0, count: max(room, 0))
                let got = buffer.withUnsafeMutableBytes { out -> Int32 in
                    var outPointer: UnsafeMutablePointer<UInt8>? = out.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    return frame!.pointee.extended_data.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { input in
                        swr_convert(resampler, &outPointer, Int32(room), input, Int32(inCount))
                    }
                }
                if got > 0 { samples += buffer.prefix(Int(got)) }
            }
        }
        while av_read_frame(fmt, packet) >= 0 {
            if packet!.pointee.stream_index == index, avcodec_send_packet(ctx, packet) >= 0 { drain() }
            av_packet_unref(packet)
        }
        avcodec_send_packet(ctx, nil)
        drain()
        guard !samples.isEmpty else { throw Failure(path: path, reason: "it holds no sound") }
        return AudioClip(samples: samples, rate: rate)
    }
}

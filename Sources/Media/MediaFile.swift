internal import CFFmpeg
import LookCore

/// An open media file's best video stream with its decoder (libavformat + libavcodec).
/// A photo is a one-frame video to FFmpeg, so photos and videos share this. It holds its four
/// contexts as objects of their own (`FFmpegHandles.swift`): an open that fails half way frees
/// exactly what it had made, the file or socket included.
public final class MediaFile {
    private let input: InputFormat
    private let decoder: CodecContext
    private let packetHandle: Packet
    private let frameHandle: Picture
    private var format: UnsafeMutablePointer<AVFormatContext> { input.pointer }
    private var codec: UnsafeMutablePointer<AVCodecContext> { decoder.pointer }
    private var packet: UnsafeMutablePointer<AVPacket> { packetHandle.pointer }
    private var frame: UnsafeMutablePointer<AVFrame> { frameHandle.pointer }
    let streamIndex: Int32
    private var draining = false
    /// Where each of the stream's packets is also kept as it is read (a live source's pre-roll).
    public var feed: ClipFeed?

    /// The stored picture size before any reduction.
    public let storedWidth: Int
    public let storedHeight: Int
    /// Seconds per tick of the stream's timestamps, and the stream's first timestamp.
    let timeBase: Double
    let startTicks: Int64
    /// Frames per second as the container states it (0 when unknown).
    public let fps: Double
    /// The length in seconds, when known.
    public let duration: Double?

    /// Opens `path`; `lowres(w, h, maxLowres)` may pick a power-of-two reduction that the decoder
    /// applies while decoding (JPEG supports 1/2, 1/4, 1/8). `interrupt`, asked during every
    /// blocking read, ends the read (and the open) when it returns true.
    public init(
        path: String, options: [String: String] = [:], lowres: (Int, Int, Int) -> Int = { _, _, _ in 0 }, interrupt: (() -> Bool)? = nil
    ) throws(MediaError) {
        FFmpegLogging.quiet()
        packetHandle = try Packet()
        frameHandle = try Picture()
        input = try InputFormat(path: path, options: options, interrupt: interrupt)
        let fmt = input.pointer
        var rc = avformat_find_stream_info(fmt, nil)
        guard rc >= 0 else { throw .failed(FFmpegLogging.describe(rc)) }
        var decoder: UnsafePointer<AVCodec>?
        let index = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &decoder, 0)
        guard index >= 0, let decoder, let stream = fmt.pointee.streams[Int(index)] else {
            throw .failed("it holds no picture")
        }
        streamIndex = index
        let tb = stream.pointee.time_base
        timeBase = tb.den == 0 ? 0 : Double(tb.num) / Double(tb.den)
        startTicks = stream.pointee.start_time == Int64.min ? 0 : stream.pointee.start_time
        let rate = stream.pointee.avg_frame_rate.den != 0 ? stream.pointee.avg_frame_rate : stream.pointee.r_frame_rate
        fps = rate.den == 0 ? 0 : Double(rate.num) / Double(rate.den)
        if stream.pointee.duration > 0 && stream.pointee.duration != Int64.min {
            duration = Double(stream.pointee.duration) * timeBase
        } else if fmt.pointee.duration > 0 {
            duration = Double(fmt.pointee.duration) / 1_000_000
        } else {
            duration = nil
        }
        self.decoder = try CodecContext(decoder)
        let ctx = self.decoder.pointer
        rc = avcodec_parameters_to_context(ctx, stream.pointee.codecpar)
        guard rc >= 0 else { throw .failed(FFmpegLogging.describe(rc)) }
        storedWidth = Int(ctx.pointee.width)
        storedHeight = Int(ctx.pointee.height)
        guard storedWidth > 0, storedHeight > 0 else { throw .failed("it has no picture size") }
        let reduce = lowres(storedWidth, storedHeight, Int(decoder.pointee.max_lowres))
        if reduce > 0 { ctx.pointee.lowres = Int32(reduce) }
        ctx.pointee.thread_count = 0
        rc = avcodec_open2(ctx, decoder, nil)
        guard rc >= 0 else { throw .failed(FFmpegLogging.describe(rc)) }
    }

    /// Seconds into the stream of a decoded frame.
    private func seconds(of frame: UnsafeMutablePointer<AVFrame>) -> Double {
        let ticks = frame.pointee.best_effort_timestamp != Int64.min ? frame.pointee.best_effort_timestamp : frame.pointee.pts
        return ticks == Int64.min ? 0 : Double(ticks - startTicks) * timeBase
    }

    /// The video stream's codec and parameters, for a clip of its packets.
    public func clipStream() throws(MediaError) -> ClipStream {
        try ClipStream(copying: format.pointee.streams[Int(streamIndex)]!.pointee.codecpar)
    }

    /// A packet as a clip keeps it: its bytes and its times in seconds into the stream.
    private func clipPacket(_ p: UnsafeMutablePointer<AVPacket>) -> ClipPacket {
        let data = p.pointee.data.map { [UInt8](UnsafeBufferPointer(start: $0, count: Int(p.pointee.size))) } ?? []
        let pts = p.pointee.pts != Int64.min ? p.pointee.pts : p.pointee.dts
        let dts = p.pointee.dts != Int64.min ? p.pointee.dts : pts
        let seconds = { (ticks: Int64) in ticks == Int64.min ? self.lastPacketSeconds : Double(ticks - self.startTicks) * self.timeBase }
        let packet = ClipPacket(data: data, pts: seconds(pts), dts: seconds(dts), key: p.pointee.flags & AV_PKT_FLAG_KEY != 0)
        lastPacketSeconds = packet.pts
        return packet
    }
    private var lastPacketSeconds = 0.0

    /// How far into the stream its reading has come (its I/O buffer's end): whether a stream that gives no
    /// picture is sending anything at all.
    public var bytesRead: Int64 { format.pointee.pb.map { $0.pointee.pos } ?? 0 }

    /// The stream's next packet, undecoded (a file cut for a clip); nil at the end.
    public func nextPacket() throws(MediaError) -> ClipPacket? {
        while true {
            let read = av_read_frame(format, packet)
            if read == cffmpeg_averror_eof() { return nil }
            guard read >= 0 else { throw .failed(FFmpegLogging.describe(read)) }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index == streamIndex { return clipPacket(packet) }
        }
    }

    /// Jumps to the last key frame at or before `seconds`; decoding goes on from there.
    public func seek(to seconds: Double) {
        guard timeBase > 0 else { return }
        let ticks = startTicks + Int64(seconds / timeBase)
        if av_seek_frame(format, streamIndex, ticks, AVSEEK_FLAG_BACKWARD) >= 0 {
            avcodec_flush_buffers(codec)
            draining = false
        }
    }

    /// Decodes the next picture into `target` (with its time); false at the end of the stream.
    public func nextFrame(into target: DecodedFrame) throws(MediaError) -> Bool {
        guard let frame = try decodeNext() else { return false }
        target.take(frame, seconds: seconds(of: frame))
        return true
    }

    /// The next decoded picture, or nil at the end of the stream. Valid until the next call.
    private func decodeNext() throws(MediaError) -> UnsafeMutablePointer<AVFrame>? {
        while true {
            let got = avcodec_receive_frame(codec, frame)
            if got >= 0 { return frame }
            if got == cffmpeg_averror_eof() { return nil }
            guard got == cffmpeg_averror_eagain() else { throw .failed(FFmpegLogging.describe(got)) }
            if draining { return nil }
            let read = av_read_frame(format, packet)
            if read < 0 {
                draining = true
                avcodec_send_packet(codec, nil)
                continue
            }
            defer { av_packet_unref(packet) }
            if packet.pointee.stream_index != streamIndex { continue }
            if let feed { feed.add(clipPacket(packet)) }
            let sent = avcodec_send_packet(codec, packet)
            if sent < 0 && sent != cffmpeg_averror_eagain() { throw .failed(FFmpegLogging.describe(sent)) }
        }
    }
}

internal import CFFmpeg
import Foundation
import LookCore
import Platform

/// Writes pictures as PNG with FFmpeg's encoder (the frames the model got, held frames' edits).
public enum PNGWriter {
    public struct Failure: Error, CustomStringConvertible {
        public let path: String
        public let reason: String
        public var description: String { "Could not write \(path): \(reason)." }
    }

    /// The PNG bytes of `image`.
    public static func encode(_ image: RGBImage) throws(Failure) -> Data {
        FFmpegLogging.quiet()
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_PNG), let ctx = avcodec_alloc_context3(codec) else {
            throw Failure(path: "", reason: "this FFmpeg has no PNG encoder")
        }
        defer { var c: UnsafeMutablePointer<AVCodecContext>? = ctx; avcodec_free_context(&c) }
        ctx.pointee.width = Int32(image.width)
        ctx.pointee.height = Int32(image.height)
        ctx.pointee.pix_fmt = AV_PIX_FMT_RGB24
        ctx.pointee.time_base = AVRational(num: 1, den: 1)
        guard avcodec_open2(ctx, codec, nil) >= 0, let packet = av_packet_alloc() else {
            throw Failure(path: "", reason: "the PNG encoder did not open")
        }
        defer { var p: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&p) }
        let frame: RGBFrame
        do {
            frame = try RGBFrame(width: image.width, height: image.height)
            try frame.fill(from: image)
        } catch {
            throw Failure(path: "", reason: error.reason)
        }
        guard avcodec_send_frame(ctx, frame.frame) >= 0, avcodec_receive_packet(ctx, packet) >= 0 else {
            throw Failure(path: "", reason: "the PNG encoder failed")
        }
        defer { av_packet_unref(packet) }
        return Data(bytes: packet.pointee.data, count: Int(packet.pointee.size))
    }

    /// Writes `image` to `path` (whole or not at all; written in its folder's descriptor, never through a link).
    public static func write(_ image: RGBImage, to path: String) throws(Failure) {
        let data: Data
        do { data = try encode(image) } catch { throw Failure(path: path, reason: error.reason) }
        do throws(Folder.Failure) {
            try Folder(folder: path).replace((path as NSString).lastPathComponent, bytes: [UInt8](data))
        } catch {
            throw Failure(path: path, reason: error.reason)
        }
    }
}

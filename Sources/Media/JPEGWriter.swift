internal import CFFmpeg
import Foundation
import LookCore
import Platform

/// Encodes pictures as JPEG with FFmpeg's MJPEG encoder (a fire's snapshot): the RGB picture is
/// converted to full-range YUV 4:2:0 by libswscale, at a fixed quality. The range is set on the
/// plain 4:2:0 format rather than with the deprecated `yuvj420p`, which makes libswscale warn (a
/// journal line per fire).
public enum JPEGWriter {
    /// JPEG bytes of `image`; `quality` is FFmpeg's qscale, 2 (best) to 31 (smallest).
    public static func encode(_ image: RGBImage, quality: Int = 3) throws(PNGWriter.Failure) -> Data {
        FFmpegLogging.quiet()
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MJPEG), let ctx = avcodec_alloc_context3(codec) else {
            throw PNGWriter.Failure(path: "", reason: "this FFmpeg has no JPEG encoder")
        }
        defer { var c: UnsafeMutablePointer<AVCodecContext>? = ctx; avcodec_free_context(&c) }
        let (w, h) = (Int32(image.width), Int32(image.height))
        ctx.pointee.width = w
        ctx.pointee.height = h
        ctx.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        ctx.pointee.color_range = AVCOL_RANGE_JPEG
        ctx.pointee.time_base = AVRational(num: 1, den: 25)
        ctx.pointee.flags |= AV_CODEC_FLAG_QSCALE
        guard avcodec_open2(ctx, codec, nil) >= 0, let packet = av_packet_alloc() else {
            throw PNGWriter.Failure(path: "", reason: "the JPEG encoder did not open")
        }
        defer { var p: UnsafeMutablePointer<AVPacket>? = packet; av_packet_free(&p) }
        guard let yuv = av_frame_alloc() else { throw PNGWriter.Failure(path: "", reason: "out of memory") }
        defer { var f: UnsafeMutablePointer<AVFrame>? = yuv; av_frame_free(&f) }
        yuv.pointee.width = w
        yuv.pointee.height = h
        yuv.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        yuv.pointee.color_range = AVCOL_RANGE_JPEG
        yuv.pointee.quality = Int32(quality) * FF_QP2LAMBDA
        guard av_frame_get_buffer(yuv, 0) >= 0 else { throw PNGWriter.Failure(path: "", reason: "out of memory") }
        guard
            let sws = sws_getContext(
                w, h, AV_PIX_FMT_RGB24, w, h, AV_PIX_FMT_YUV420P, Int32(SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil)
        else { throw PNGWriter.Failure(path: "", reason: "cannot convert the picture for JPEG") }
        defer { sws_freeContext(sws) }
        // Full range out (JPEG's), as yuvj420p gave.
        let coefficients = sws_getCoefficients(SWS_CS_DEFAULT)
        sws_setColorspaceDetails(sws, coefficients, 1, coefficients, 1, 0, 1 << 16, 1 << 16)
        let rows = image.pixels.withUnsafeBufferPointer { src -> Int32 in
            var srcPlanes: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
            var srcStride: [Int32] = [Int32(image.width * 3), 0, 0, 0]
            return withUnsafeMutablePointer(to: &yuv.pointee.data) { data in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { dst in
                    withUnsafeMutablePointer(to: &yuv.pointee.linesize) { lines in
                        lines.withMemoryRebound(to: Int32.self, capacity: 8) { dstStride in
                            sws_scale(sws, &srcPlanes, &srcStride, 0, h, dst, dstStride)
                        }
                    }
                }
            }
        }
        guard rows == h, avcodec_send_frame(ctx, yuv) >= 0, avcodec_receive_packet(ctx, packet) >= 0 else {
            throw PNGWriter.Failure(path: "", reason: "the JPEG encoder failed")
        }
        defer { av_packet_unref(packet) }
        return Data(bytes: packet.pointee.data, count: Int(packet.pointee.size))
    }

    /// Writes `image` as JPEG to `path` (whole or not at all; written in its folder's descriptor, never through a link).
    public static func write(_ image: RGBImage, to path: String, quality: Int = 3) throws(PNGWriter.Failure) {
        let data: Data
        do { data = try encode(image, quality: quality) } catch { throw PNGWriter.Failure(path: path, reason: error.reason) }
        do throws(Folder.Failure) {
            try Folder(folder: path).replace((path as NSString).lastPathComponent, bytes: [UInt8](data))
        } catch {
            throw PNGWriter.Failure(path: path, reason: error.reason)
        }
    }
}

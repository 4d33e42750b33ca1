internal import CFFmpeg
import LookCore

/// Converts decoded FFmpeg pictures to `RGBImage` at a chosen size (libswscale, area averaging).
public final class FrameScaler {
    private var context: OpaquePointer?

    public init() { FFmpegLogging.quiet() }

    /// The picture in `picture` as RGB at `width` × `height`.
    public func rgb(_ picture: DecodedFrame, width: Int, height: Int) throws(MediaError) -> RGBImage {
        let f = picture.frame.pointee
        context = sws_getCachedContext(
            context, f.width, f.height, AVPixelFormat(rawValue: f.format),
            Int32(width), Int32(height), AV_PIX_FMT_RGB24,
            Int32(SWS_AREA | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT), nil, nil, nil)
        guard let context else { throw .failed("cannot convert its pixel format") }
        let stride = width * 3
        var pixels = [UInt8](repeating: 0, count: stride * height)
        let rows = pixels.withUnsafeMutableBufferPointer { out -> Int32 in
            var dst: [UnsafeMutablePointer<UInt8>?] = [out.baseAddress, nil, nil, nil]
            var dstStride: [Int32] = [Int32(stride), 0, 0, 0]
            return withUnsafePointer(to: f.data) { dataTuple in
                dataTuple.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { src in
                    withUnsafePointer(to: f.linesize) { lineTuple in
                        lineTuple.withMemoryRebound(to: Int32.self, capacity: 8) { srcStride in
                            sws_scale(context, src, srcStride, 0, f.height, &dst, &dstStride)
                        }
                    }
                }
            }
        }
        guard rows == Int32(height) else { throw .failed("could not convert the picture") }
        return RGBImage(width: width, height: height, pixels: pixels)!
    }

    deinit { sws_freeContext(context) }
}

import Foundation
import LookCore
import Media

/// Decodes a photo (JPEG, PNG, WebP and whatever else FFmpeg reads) into an upright RGB picture.
/// A photo whose long side is over `maxSide` is reduced: JPEG while it decodes (1/2, 1/4, 1/8),
/// then scaled so that the long side is at most `maxSide`.
public enum PhotoDecoder {
    public static let maxSide = 4096

    public static func decode(path: String, maxSide: Int = PhotoDecoder.maxSide) throws(CaptureError) -> RGBImage {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw .noPhoto(path: path) }
        guard !isDirectory.boolValue else { throw .unreadablePhoto(path: path, reason: "it is a folder, not a photo") }
        // A pipe or a device would be waited on without end (a FIFO named x.jpg in a watched folder).
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else {
            throw .unreadablePhoto(path: path, reason: "it is not a regular file (a pipe or a device), so it is not read")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadablePhoto(path: path, reason: "it cannot be opened for reading")
        }
        let orientation = ExifOrientation.read(Array(data)) ?? .up
        do throws(MediaError) {
            let file = try MediaFile(path: path) { w, h, maxLowres in reduction(width: w, height: h, maxLowres: maxLowres, maxSide: maxSide) }
            let frame = DecodedFrame()
            guard try file.nextFrame(into: frame) else { throw MediaError.failed("it holds no picture") }
            let (w, h) = fittedSize(width: frame.width, height: frame.height, maxSide: maxSide)
            let stored = try FrameScaler().rgb(frame, width: w, height: h)
            return stored.upright(from: orientation)
        } catch {
            if let (w, h) = pngSize(data), w * h > ffmpegPixelLimit {
                throw .unreadablePhoto(
                    path: path,
                    reason: "it is \(w) × \(h) pixels, more than FFmpeg decodes (about \(ffmpegPixelLimit / 1_000_000) million); reduce it first")
            }
            throw .unreadablePhoto(path: path, reason: error.reason)
        }
    }

    /// FFmpeg refuses pictures past (w + 128) × (h + 128) ≥ INT_MAX / 8 (av_image_check_size).
    static let ffmpegPixelLimit = Int(Int32.max) / 8

    /// A PNG's size from its header (IHDR), to say why FFmpeg could not read it.
    static func pngSize(_ data: Data) -> (Int, Int)? {
        let b = [UInt8](data.prefix(24))
        guard b.count == 24, b[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], b[12..<16] == [0x49, 0x48, 0x44, 0x52] else { return nil }
        let be = { (i: Int) in b[i..<i + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (be(16), be(20))
    }

    /// The power-of-two reduction a decoder applies while decoding: the largest that keeps the long
    /// side at or above `maxSide`, so the final scaling only ever shrinks.
    static func reduction(width: Int, height: Int, maxLowres: Int, maxSide: Int) -> Int {
        let long = max(width, height)
        var k = 0
        while k < maxLowres, long >> (k + 1) >= maxSide { k += 1 }
        return k
    }
}

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
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw .noPhoto(path: path)
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
            throw .unreadablePhoto(path: path, reason: error.reason)
        }
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

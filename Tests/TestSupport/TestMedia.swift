import Foundation
import LookCore

/// Test media made by the real ffmpeg: photos of known content in any format and size.
public enum TestMedia {
    /// A photo of ffmpeg's `testsrc2` pattern (or `color=c=...`), written to `path` (format from the
    /// extension: .jpg, .png, .webp).
    public static func photo(_ path: String, width: Int, height: Int, source: String = "testsrc2") throws {
        let input = source.hasPrefix("color") ? "\(source):s=\(width)x\(height)" : "\(source)=s=\(width)x\(height)"
        try Subprocess.shell("ffmpeg -v error -y -f lavfi -i '\(input)' -frames:v 1 '\(path)'")
    }

    /// A picture split in two colours: left half `left`, right half `right` (a rotation is visible).
    public static func halves(width: Int, height: Int, left: (UInt8, UInt8, UInt8), right: (UInt8, UInt8, UInt8)) -> RGBImage {
        var image = RGBImage(width: width, height: height, fill: (left.0, left.1, left.2))
        for y in 0..<height {
            for x in (width / 2)..<width {
                let i = (y * width + x) * 3
                image.pixels[i] = right.0; image.pixels[i + 1] = right.1; image.pixels[i + 2] = right.2
            }
        }
        return image
    }

    /// Writes `image` as a PNG through ffmpeg (raw RGB in).
    public static func writePNG(_ image: RGBImage, to path: String) throws {
        let raw = path + ".rgb"
        try Data(image.pixels).write(to: URL(fileURLWithPath: raw))
        defer { try? FileManager.default.removeItem(atPath: raw) }
        try Subprocess.shell("ffmpeg -v error -y -f rawvideo -pix_fmt rgb24 -s \(image.width)x\(image.height) -i '\(raw)' '\(path)'")
    }

    /// Inserts an EXIF APP1 segment with `orientation` right after a JPEG's SOI marker.
    public static func addEXIFOrientation(_ orientation: Int, toJPEG path: String) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        precondition(bytes.starts(with: [0xFF, 0xD8]), "not a JPEG")
        // Big-endian TIFF: header, IFD0 with one entry (0x0112, SHORT, 1, value), no next IFD.
        var tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01]
        tiff += [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00]
        tiff += [0x00, 0x00, 0x00, 0x00]
        let body: [UInt8] = Array("Exif".utf8) + [0, 0] + tiff
        let length = body.count + 2
        let segment: [UInt8] = [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        bytes.insert(contentsOf: segment, at: 2)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

extension TestMedia {
    /// A folder `photos` inside `dir` holding one 64 × 64 test-pattern photo; returns its path.
    public static func photoFolder(in dir: URL) throws -> String {
        let folder = dir.appendingPathComponent("photos").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try photo((folder as NSString).appendingPathComponent("one.png"), width: 64, height: 64)
        return folder
    }

    /// An H.264 clip of `seconds` at `fps` from a lavfi source (testsrc2 shows a running frame counter).
    /// A keyframe every `keyframeSeconds` (a second by default; a camera's may be 12 s apart).
    public static func clip(
        _ path: String, seconds: Double, fps: Int = 30, width: Int = 320, height: Int = 180,
        source: String = "testsrc2", keyframeSeconds: Int = 1
    ) throws {
        try Subprocess.shell(
            "ffmpeg -v error -y -f lavfi -i '\(source)=s=\(width)x\(height):r=\(fps):d=\(seconds)' -c:v libx264 -preset ultrafast -pix_fmt yuv420p "
                + "-g \(fps * keyframeSeconds) -keyint_min \(fps * keyframeSeconds) -sc_threshold 0 '\(path)'"
        )
    }

    /// A clip whose picture is one solid colour for each listed span: [("red", 1.0), ("blue", 2.0)].
    public static func colourClip(_ path: String, spans: [(colour: String, seconds: Double)], fps: Int = 10) throws {
        let inputs = spans.map { "-f lavfi -i 'color=c=\($0.colour):s=160x90:r=\(fps):d=\($0.seconds)'" }.joined(separator: " ")
        let filter = (0..<spans.count).map { "[\($0):v]" }.joined() + "concat=n=\(spans.count):v=1[v]"
        try Subprocess.shell(
            "ffmpeg -v error -y \(inputs) -filter_complex '\(filter)' -map '[v]' -c:v libx264 -preset ultrafast -pix_fmt yuv420p '\(path)'")
    }

    /// ffmpeg sending 20 s of H.264 (320 × 180, 25 fps, a keyframe a second) in MPEG-TS to a
    /// loopback UDP port, in real time: a live stream. The caller stops it.
    public static func udpStream(port: Int) throws -> Process {
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        server.arguments = [
            "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25", "-t", "20",
            "-c:v", "libx264", "-preset", "ultrafast", "-tune", "zerolatency", "-g", "25",
            "-f", "mpegts", "udp://127.0.0.1:\(port)?pkt_size=1316",
        ]
        try server.run()
        return server
    }
}

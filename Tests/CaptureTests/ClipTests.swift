import Capture
import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Media

/// Clips cut from what a source keeps (`ClipFeed`) and written by `ClipWriter`, checked with the
/// real ffprobe: the span asked for, within one keyframe interval, as H.264 yuv420p in MP4 with
/// its index at the front.
final class ClipTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    /// What ffprobe says of a clip: codec, pixel format, duration, frames, and where the index is.
    struct Probe {
        var codec: String
        var pixelFormat: String
        var duration: Double
        var frames: Int
        var moovFirst: Bool

        init(_ path: String) throws {
            let out = try Subprocess.shell(
                "ffprobe -v error -select_streams v:0 -count_frames -show_entries stream=codec_name,pix_fmt,nb_read_frames:format=duration -of default=nw=1 '\(path)'"
            ).stdout
            var fields: [String: String] = [:]
            for line in out.split(separator: "\n") {
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            codec = fields["codec_name"] ?? ""
            pixelFormat = fields["pix_fmt"] ?? ""
            duration = Double(fields["duration"] ?? "") ?? -1
            frames = Int(fields["nb_read_frames"] ?? "") ?? -1
            let head = try XCTUnwrap(FileManager.default.contents(atPath: path)).prefix(4096)
            let moov = head.range(of: Data("moov".utf8)), mdat = head.range(of: Data("mdat".utf8))
            moovFirst = moov != nil && (mdat == nil || moov!.lowerBound < mdat!.lowerBound)
        }
    }

    /// Copied from the keyframe at or before the asked start, and made to start at it by the MP4's
    /// edit list: the clip is as long as asked, however far back the keyframe is.
    func testAnH264FileIsCopiedAndStartsAtTheAskedTime() throws {
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 20, fps: 30, width: 640, height: 480) // a keyframe every second
        let feed = ClipFeed(keep: 11, budget: 64 << 20)
        feed.useFile(video)
        let material = try XCTUnwrap(try feed.material(from: 7.5, to: 12.5))
        XCTAssertTrue(material.stream.copies)
        XCTAssertEqual(material.packets.first?.pts ?? -1, 7, accuracy: 0.001, "it starts on the keyframe before 7.5 s")
        let path = dir.appendingPathComponent("clip.mp4").path
        let written = try ClipWriter.write(material, to: path)
        XCTAssertTrue(written.copied)
        XCTAssertEqual(written.starts, "edit list")
        XCTAssertEqual(written.start, 7.5, accuracy: 0.001)
        XCTAssertEqual(written.duration, 5.03, accuracy: 0.05)
        XCTAssertEqual(written.frames, 151)
        let probe = try Probe(path)
        XCTAssertEqual(probe.codec, "h264")
        XCTAssertEqual(probe.pixelFormat, "yuv420p")
        XCTAssertEqual(probe.duration, 5.03, accuracy: 0.05, "a player shows the asked span")
        XCTAssertEqual(probe.frames, 151, accuracy: 1)
        XCTAssertTrue(probe.moovFirst, "faststart: the index comes before the pictures")
        XCTAssertEqual(written.bytes, Int(try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber).intValue))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + ".part"))
    }

    /// A camera's keyframes 12 s apart: the clip still holds the asked 5 s before and 5 s after.
    func testKeyframesFarApartStillGiveTheAskedSpan() throws {
        let video = dir.appendingPathComponent("far.mp4").path
        try TestMedia.clip(video, seconds: 30, fps: 10, keyframeSeconds: 12)
        let feed = ClipFeed(keep: 30, budget: 64 << 20)
        feed.useFile(video)
        let material = try XCTUnwrap(try feed.material(from: 19, to: 29))
        XCTAssertEqual(material.packets.first?.pts ?? -1, 12, accuracy: 0.001, "the keyframe 7 s before the asked start")
        let path = dir.appendingPathComponent("far-clip.mp4").path
        let written = try ClipWriter.write(material, to: path)
        XCTAssertEqual(written.start, 19, accuracy: 0.001)
        XCTAssertEqual(written.duration, 10.1, accuracy: 0.15)
        XCTAssertEqual(try Probe(path).duration, 10.1, accuracy: 0.15, "not 17 s from the keyframe")
    }

    func testAnotherCodecIsEncodedAsH264AtTheCapsRateAndSize() throws {
        let video = dir.appendingPathComponent("in.avi").path
        try Subprocess.shell(
            "ffmpeg -v error -y -f lavfi -i 'testsrc2=s=1280x720:r=30:d=6' -c:v mjpeg -q:v 5 '\(video)'")
        let feed = ClipFeed(keep: 11, budget: 64 << 20)
        feed.useFile(video)
        let material = try XCTUnwrap(try feed.material(from: 1, to: 4))
        XCTAssertFalse(material.stream.copies)
        XCTAssertEqual(material.stream.codec, "mjpeg")
        let path = dir.appendingPathComponent("clip.mp4").path
        let written = try ClipWriter.write(material, to: path, maxSide: 640, fps: 15)
        XCTAssertFalse(written.copied)
        XCTAssertEqual(written.duration, 3.0 + 1.0 / 15, accuracy: 0.08)
        XCTAssertEqual(written.frames, 46, accuracy: 1)
        let probe = try Probe(path)
        XCTAssertEqual([probe.codec, probe.pixelFormat], ["h264", "yuv420p"])
        XCTAssertEqual(probe.frames, written.frames)
        XCTAssertTrue(probe.moovFirst)
        let size = try Subprocess.shell("ffprobe -v error -select_streams v:0 -show_entries stream=width,height -of csv=p=0 '\(path)'").stdout
        XCTAssertEqual(size.trimmingCharacters(in: .whitespacesAndNewlines), "640,360")
    }

    func testTheFeedKeepsItsSecondsFromAKeyframeAndItsBudget() throws {
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 1, fps: 10)
        let stream = try MediaFile(path: video).clipStream()
        let feed = ClipFeed(keep: 2, budget: 10_000)
        feed.begin(stream)
        // 10 packets a second of 100 bytes, a keyframe each second.
        for i in 0..<50 { feed.add(ClipPacket(data: [UInt8](repeating: 0, count: 100), pts: Double(i) / 10, key: i % 10 == 0)) }
        var usage = feed.usage
        XCTAssertEqual(usage.packets, 30, "from the last keyframe at least 2 s before 4.9 s (2.0 s) on")
        XCTAssertEqual(usage.bytes, 3000)
        XCTAssertEqual(feed.reach ?? -1, 4.9, accuracy: 1e-9)
        let material = try XCTUnwrap(try feed.material(from: 3.5, to: 4.2))
        XCTAssertEqual(material.packets.map(\.pts).first ?? -1, 3, accuracy: 1e-9)
        XCTAssertEqual(material.packets.map(\.pts).last ?? -1, 4.2, accuracy: 1e-9)
        // Over the budget (big packets): the oldest go, keyframe to keyframe.
        for i in 50..<60 { feed.add(ClipPacket(data: [UInt8](repeating: 0, count: 900), pts: Double(i) / 10, key: i % 10 == 0)) }
        usage = feed.usage
        XCTAssertEqual(usage.bytes, 10_000)
        XCTAssertEqual(usage.overBudget, 10, "the second from 3 s went before its time")
        XCTAssertEqual(try XCTUnwrap(try feed.material(from: 0, to: 9)).packets.first?.pts ?? -1, 4, accuracy: 1e-9, "a clip starts on a keyframe")
        feed.begin(stream)
        XCTAssertNil(feed.reach, "a reopened source starts afresh")
    }

    /// A camera unplugged and plugged back goes on at the same size: a fire just before the unplug
    /// still has its seconds before; at another size its pictures start afresh.
    func testACameraOpenedAgainKeepsWhatItHadAtTheSameSize() throws {
        let feed = ClipFeed(keep: 10, budget: 64 << 20)
        feed.begin(try ClipStream(mjpegWidth: 320, height: 240), clockStamped: true, maxRate: ClipFeed.encodedRate)
        for i in 0..<30 { feed.add(ClipPacket(data: [1, 2, 3], pts: 100 + Double(i) / 15, key: true)) }
        feed.begin(try ClipStream(mjpegWidth: 320, height: 240), clockStamped: true, maxRate: ClipFeed.encodedRate)
        for i in 0..<15 { feed.add(ClipPacket(data: [1, 2, 3], pts: 105 + Double(i) / 15, key: true)) }
        let material = try XCTUnwrap(try feed.material(from: 100.5, to: 106))
        XCTAssertEqual(material.packets.first?.pts ?? -1, 100.4667, accuracy: 1e-3, "the pictures from before the unplug are kept")
        XCTAssertEqual(material.packets.count, 23 + 15)
        feed.begin(try ClipStream(mjpegWidth: 640, height: 480), clockStamped: true, maxRate: ClipFeed.encodedRate)
        XCTAssertNil(feed.reach, "another size starts afresh")
        XCTAssertNil(try feed.material(from: 100.5, to: 106))
        for i in 0..<15 { feed.add(ClipPacket(data: [1, 2, 3], pts: 110 + Double(i) / 15, key: true)) }
        XCTAssertNotNil(feed.reach)
        feed.begin(try ClipStream(rgbWidth: 640, height: 480), clockStamped: true)
        XCTAssertNil(feed.reach, "another kind of picture at the same size starts afresh")
    }

    func testACamerasRawPicturesAreThinnedToTheRateTheBudgetAffords() throws {
        // 11 s of 640 × 480 RGB pictures in 64 MiB: one every 0.153 s (6.5 a second), not 30.
        let feed = ClipFeed(keep: 11, budget: 64 << 20)
        feed.begin(try ClipStream(rgbWidth: 640, height: 480), clockStamped: true)
        XCTAssertTrue(feed.isClockStamped)
        let picture = [UInt8](repeating: 7, count: 640 * 480 * 3)
        for i in 0..<(30 * 20) { feed.add(ClipPacket(data: picture, pts: 100 + Double(i) / 30, key: true)) }
        let usage = feed.usage
        XCTAssertLessThanOrEqual(usage.bytes, 64 << 20)
        XCTAssertEqual(usage.overBudget, 0, "thinned, the seconds kept fit")
        XCTAssertEqual(usage.seconds, 11, accuracy: 0.2)
        XCTAssertEqual(Double(usage.packets) / usage.seconds, 6.5, accuracy: 0.5)
    }

    func testACamerasPicturesAreKeptAsJPEGAt15ASecondAndEncoded() throws {
        // 6 s of 640 × 480 pictures at 30 a second, as a camera's reader gets them (RGB).
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 6, fps: 30, width: 640, height: 480)
        let source = try VideoFileSource(path: video, pace: .frames(every: 1.0 / 30), maxSide: 4096, clock: MonotonicClock())
        let feed = ClipFeed(keep: 10, budget: 64 << 20)
        let compressor = try PictureCompressor(width: 640, height: 480)
        feed.begin(try ClipStream(mjpegWidth: 640, height: 480), clockStamped: true, maxRate: ClipFeed.encodedRate)
        var offered = 0
        while let frame = try source.next(), let image = source.original() {
            offered += 1
            let t = 1000 + (frame.sourceTime ?? 0) // the run's clock
            if feed.due(t) { feed.add(ClipPacket(data: try compressor.jpeg(image), pts: t, key: true)) }
        }
        XCTAssertEqual(offered, 180)
        let usage = feed.usage
        XCTAssertEqual(usage.packets, 90, "15 a second of the camera's 30")
        XCTAssertLessThan(usage.bytes, 90 * 100_000, "JPEG, not 921,600 bytes a picture")
        XCTAssertTrue(feed.isClockStamped)
        let material = try XCTUnwrap(try feed.material(from: 1001, to: 1004))
        let path = dir.appendingPathComponent("camera.mp4").path
        let written = try ClipWriter.write(material, to: path)
        XCTAssertFalse(written.copied)
        let probe = try Probe(path)
        XCTAssertEqual([probe.codec, probe.pixelFormat], ["h264", "yuv420p"])
        XCTAssertEqual(probe.frames, 46, accuracy: 1, "3 s at 15 a second")
        XCTAssertEqual(probe.duration, 3 + 1.0 / 15, accuracy: 0.08)
        // The picture survives: a frame of the clip looks as the camera's picture at that time (4 × 4 colours).
        func colours(_ file: String, at seconds: Double) throws -> [Int] {
            try Subprocess.shell(
                "ffmpeg -v error -ss \(seconds) -i '\(file)' -frames:v 1 -vf scale=4:4:flags=area -f rawvideo -pix_fmt rgb24 - | od -An -tu1"
            ).stdout.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        }
        let (clipped, original) = (try colours(path, at: 1.5), try colours(video, at: 2.5))
        XCTAssertEqual(clipped.count, 48)
        let difference = zip(clipped, original).map { abs($0 - $1) }.reduce(0, +) / max(1, clipped.count)
        XCTAssertLessThan(difference, 12, "\(clipped) against \(original)")
    }

    func testACamerasClipLeavesFFmpegSilent() throws {
        // Under the service a camera is watched and no media file is opened: FFmpeg's level is its
        // own default until something silences it, and its lines (libx264's statistics,
        // libswscale's warnings) would reach the journal at every clip.
        let compressor = try PictureCompressor(width: 320, height: 240)
        let feed = ClipFeed(keep: 10, budget: 64 << 20)
        feed.begin(try ClipStream(mjpegWidth: 320, height: 240), clockStamped: true, maxRate: ClipFeed.encodedRate)
        for i in 0..<45 {
            let shade = UInt8(i * 5)
            let image = try XCTUnwrap(RGBImage(width: 320, height: 240, pixels: [UInt8](repeating: shade, count: 320 * 240 * 3)))
            let t = 1000 + Double(i) / 15
            if feed.due(t) { feed.add(ClipPacket(data: try compressor.jpeg(image), pts: t, key: true)) }
        }
        let material = try XCTUnwrap(try feed.material(from: 1000.5, to: 1002.5))
        FFmpegLogging.speak()
        defer { FFmpegLogging.quiet() }
        let path = dir.appendingPathComponent("camera.mp4").path
        var written: ClipWriter.Written?
        let said = try standardError { written = try ClipWriter.write(material, to: path) }
        XCTAssertEqual(written?.copied, false, "encoded with libx264, whose statistics FFmpeg would print")
        XCTAssertTrue(FFmpegLogging.isQuiet)
        XCTAssertEqual(said, "", "FFmpeg's own lines on standard error")
    }

    /// What `body` writes to standard error (file descriptor 2), through a pipe.
    private func standardError(_ body: () throws -> Void) throws -> String {
        fflush(nil)
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        let saved = dup(2)
        dup2(ends[1], 2)
        close(ends[1])
        var failure: Error?
        do { try body() } catch { failure = error }
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        var text = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(ends[0], &buffer, buffer.count)
            if n <= 0 { break }
            text.append(contentsOf: buffer[0..<n])
        }
        close(ends[0])
        if let failure { throw failure }
        return String(decoding: text, as: UTF8.self)
    }

    func testAStreamsPacketsAreKeptAndCopiedAroundAFrame() throws {
        let port = Int.random(in: 20_000...40_000)
        let server = try TestMedia.udpStream(port: port)
        defer { server.terminate(); server.waitUntilExit() }
        let feed = ClipFeed(keep: 2 + 2 + 4, budget: 64 << 20)
        let source = try LiveStreamSource(url: "udp://127.0.0.1:\(port)", maxSide: 160, clock: MonotonicClock(), stallTimeout: 10, clips: feed)
        var frame = try XCTUnwrap(try source.next())
        while (frame.sourceTime ?? 0) < 3.5 { frame = try XCTUnwrap(try source.next()) }
        let fired = try XCTUnwrap(frame.sourceTime)
        Poll.until(within: 10, every: 0.05) { (feed.reach ?? 0) >= fired + 2 }
        XCTAssertGreaterThanOrEqual(feed.reach ?? 0, fired + 2, "the post-roll came in")
        let material = try XCTUnwrap(try feed.material(from: fired - 2, to: fired + 2))
        XCTAssertTrue(material.stream.copies)
        let start = try XCTUnwrap(material.packets.first?.pts)
        XCTAssertLessThanOrEqual(start, fired - 2 + 1e-6)
        XCTAssertGreaterThan(start, fired - 3.05, "within one keyframe interval (1 s) before the pre-roll")
        let path = dir.appendingPathComponent("stream.mp4").path
        let written = try ClipWriter.write(material, to: path)
        XCTAssertTrue(written.copied)
        XCTAssertEqual(written.start, fired - 2, accuracy: 0.001, "it starts at the asked time, not at the keyframe")
        let probe = try Probe(path)
        XCTAssertEqual([probe.codec, probe.pixelFormat], ["h264", "yuv420p"])
        XCTAssertEqual(probe.duration, 4, accuracy: 0.15)
        XCTAssertEqual(probe.frames, written.frames, accuracy: 1)
        XCTAssertTrue(probe.moovFirst)
        XCTAssertGreaterThan(feed.usage.bytes, 0)
    }
}

import Capture
import Foundation
import LookCore
import Media

/// tools/bench-clips' measuring half: what a clip costs to keep and to write, on the paths lookd
/// takes. A camera: its RGB pictures go into the feed as the camera's reader puts them (JPEG, 15 a
/// second), and a clip is encoded with libx264. An H.264 stream: its packets
/// go into the feed as the stream's reader reads them, and a clip copies them. The pictures and
/// packets come from VIDEO (640 × 480, 30 fps), at its own rate; the feed keeps PRE + POST + 4 s.
/// Prints numbers; asserts nothing.
///
/// Usage: bench-clips VIDEO [--pre S] [--post S] [--memory MIB] [--rounds N]

func option(_ name: String, _ fallback: Double) -> Double {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count, let v = Double(args[i + 1]) else { return fallback }
    return v
}

guard CommandLine.arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: bench-clips VIDEO [--pre S] [--post S] [--memory MIB] [--rounds N]\n".utf8))
    exit(2)
}
let video = CommandLine.arguments[1]
let (pre, post) = (option("--pre", 5), option("--post", 5))
let memory = Int(option("--memory", 64)) << 20
let rounds = Int(option("--rounds", 3))
let clock = MonotonicClock()
let out = FileManager.default.temporaryDirectory.appendingPathComponent("lookd-bench-clips-\(getpid())").path
try? FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: out) }

/// The middle of the span the feed holds: a fire there has its pre-roll and its post-roll.
func fireTime(_ feed: ClipFeed) -> Double { (feed.reach ?? 0) - post }

func report(_ name: String, _ feed: ClipFeed, fill: Double, _ written: ClipWriter.Written, seconds: Double) {
    let usage = feed.usage
    let numbers = String(
        format: "feed %6.1f MB, %4d packets over %4.1f s (%.1f a second)   fill %5.2f ms/s of video   clip %5.2f s, %4d frames, %5.2f MB, "
            + "written in %6.1f ms",
        Double(usage.bytes) / 1e6, usage.packets, usage.seconds, Double(usage.packets) / max(usage.seconds, 1e-9), fill, written.duration,
        written.frames, Double(written.bytes) / 1e6, seconds * 1000)
    print(name.padding(toLength: 24, withPad: " ", startingAt: 0) + numbers)
}

for round in 1...rounds {
    print("round \(round)")
    // A camera: 30 RGB pictures a second, kept as the camera's reader keeps them (JPEG, 15 a second).
    do {
        let source = try VideoFileSource(path: video, pace: .frames(every: 1.0 / 30), maxSide: 4096, clock: MonotonicClock())
        let feed = ClipFeed(keep: pre + post + 4, budget: memory)
        let compressor = try PictureCompressor(width: source.info.width, height: source.info.height)
        feed.begin(try ClipStream(mjpegWidth: source.info.width, height: source.info.height), clockStamped: true, maxRate: ClipFeed.encodedRate)
        var filling = 0.0
        var span = 0.0
        while let frame = try source.next(), let image = source.original() {
            let t = frame.sourceTime ?? 0
            let started = clock.now()
            if feed.due(t) { feed.add(ClipPacket(data: try compressor.jpeg(image), pts: t, key: true)) }
            filling += clock.now() - started
            span = t
            if span >= pre + post + 6 { break }
        }
        let t = fireTime(feed)
        let material = try feed.material(from: t - pre, to: t + post)!
        let started = clock.now()
        let written = try ClipWriter.write(material, to: out + "/camera-\(round).mp4")
        report("camera (JPEG, libx264)", feed, fill: filling / span * 1000, written, seconds: clock.now() - started)
    } catch {
        print("camera: \(error)")
    }
    // An H.264 stream: its packets, as the stream's reader keeps them while it decodes.
    do {
        let file = try MediaFile(path: video)
        let feed = ClipFeed(keep: pre + post + 4, budget: memory)
        feed.begin(try file.clipStream())
        var packets: [ClipPacket] = []
        while let packet = try file.nextPacket(), packet.pts <= pre + post + 6 { packets.append(packet) }
        let started = clock.now()
        for packet in packets { feed.add(packet) }
        let filling = clock.now() - started
        let t = fireTime(feed)
        let material = try feed.material(from: t - pre, to: t + post)!
        let writing = clock.now()
        let written = try ClipWriter.write(material, to: out + "/h264-\(round).mp4")
        report("H.264 stream (copy)", feed, fill: filling / (pre + post + 6) * 1000, written, seconds: clock.now() - writing)
    } catch {
        print("H.264 stream: \(error)")
    }
}

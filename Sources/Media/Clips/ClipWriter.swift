import Foundation
import LookCore

/// Writes a clip: its packets as H.264 (yuv420p) in MP4 with faststart. H.264 packets are copied
/// as they are (no encoding), from the keyframe at or before the asked start, and the MP4's edit
/// list makes the clip start at the asked time: a player shows nothing of the pictures before it,
/// however far back the keyframe is (a camera's may be 12 s apart). Any other codec is encoded with
/// libx264 (`ClipEncoder`), from the asked start.
public enum ClipWriter {
    /// What was written: where the clip starts in the source (seconds), how long it is, its
    /// pictures and bytes, and whether the source's packets were copied (or encoded).
    public struct Written: Sendable, Equatable {
        public var start: Double
        public var duration: Double
        public var frames: Int
        public var bytes: Int
        public var copied: Bool
        /// How the clip starts at the asked time: `edit list` (copied packets, the pictures before
        /// it skipped by the MP4's edit list), `encoded` (encoded from it), or `keyframe` (none was
        /// asked, or the first keyframe is after it).
        public var starts = "keyframe"
    }

    /// Writes `material` to `path` (an encoded clip: `maxSide` and `fps` at most).
    public static func write(_ material: ClipMaterial, to path: String, maxSide: Int = 640, fps: Double = 15) throws(MediaError) -> Written {
        guard let first = material.packets.first else { throw .failed("the clip has no pictures") }
        if material.stream.copies { return try copy(material, to: path) }
        let encoder = try ClipEncoder(stream: material.stream, path: path, maxSide: maxSide, fps: fps, from: material.from)
        for packet in material.packets { try encoder.add(packet) }
        let bytes = try encoder.finish()
        let span = Double((encoder.last ?? 0) - (encoder.first ?? 0)) / 1000
        let start = encoder.first.map { Double($0) / 1000 } ?? first.pts
        var written = Written(start: start, duration: span + 1 / fps, frames: encoder.frames, bytes: bytes, copied: false)
        if material.from != nil { written.starts = "encoded" }
        return written
    }

    /// H.264 packets into the MP4 as they are, their times shifted so that the asked start is 0: the
    /// packets before it (from the keyframe on) have times below 0, which the MP4 muxer turns into an
    /// edit list that skips them.
    private static func copy(_ material: ClipMaterial, to path: String) throws(MediaError) -> Written {
        let packets = material.packets
        let shown = packets.map(\.pts).min() ?? 0
        let last = packets.map(\.pts).max() ?? shown
        let asked = material.from.map { min(max($0, shown), last) }
        let origin = asked ?? packets.map { min($0.dts, $0.pts) }.min() ?? 0
        // Each packet lasts until the next one is decoded; the last as long as the one before it.
        let steps = zip(packets.dropFirst(), packets).map { $0.dts - $1.dts }.filter { $0 > 0 }
        let step = steps.sorted().dropFirst(steps.count / 2).first ?? 1.0 / 30
        let rate = 90_000.0
        let muxer = try ClipMuxer(path: path, parameters: material.stream.parameters, ticks: .init(num: 1, den: Int32(rate)))
        for (i, packet) in packets.enumerated() {
            let next = i + 1 < packets.count ? packets[i + 1].dts - packet.dts : step
            try muxer.write(
                packet.data, pts: Int64(((packet.pts - origin) * rate).rounded()), dts: Int64(((packet.dts - origin) * rate).rounded()),
                duration: Int64((max(next, 0) * rate).rounded()), key: packet.key)
        }
        let bytes = try muxer.finish()
        let start = asked ?? shown
        let end = last + step
        var written = Written(
            start: start, duration: end - start, frames: packets.filter { $0.pts >= start - 1e-6 }.count, bytes: bytes, copied: true)
        if let asked, asked > shown + 1e-6 { written.starts = "edit list" }
        return written
    }
}

import Foundation
import LookCore

/// Where a clip's packets come from, filled by the source as it reads. A camera or a stream keeps
/// its last seconds here at its own rate (the pre-roll, the post-roll and a keyframe's slack),
/// within a memory budget: compressed, as the source gives them. A video file needs none of that:
/// the file holds every second before and after a fire already, and is read again for the clip.
/// A camera's pictures come decoded (RGB, as libv4l gives them to lookd): they are kept as JPEG,
/// 15 a second at most (`maxRate`; the camera asks `due` before it compresses one), or, when no
/// JPEG encoder can be had, raw, thinned to the rate the budget affords for the seconds kept; their
/// times are the run's clock (`clockStamped`), as a camera's frames have no time of their own.
public final class ClipFeed: @unchecked Sendable {
    /// Seconds of packets kept, and the bytes they may take at most.
    public let keep: Double
    public let budget: Int
    private let lock = NSLock()
    private var stream: ClipStream?
    private var packets: [ClipPacket] = []
    private var head = 0
    private var bytes = 0
    private var file: String?
    private var ended = false
    private var trimmed = 0
    private var clockStamped = false
    /// Raw pictures: the least time between two kept.
    private var gap = 0.0
    /// The rate clips are encoded at, at most.
    public static let encodedRate = 15.0

    /// What the feed holds now, for `/metrics`: bytes, packets, seconds, and the packets the budget
    /// dropped before their time.
    public struct Usage: Sendable, Equatable {
        public var bytes: Int
        public var packets: Int
        public var seconds: Double
        public var overBudget: Int
    }

    public init(keep: Double, budget: Int) { (self.keep, self.budget) = (keep, budget) }

    /// A live source opened (again): its packets start afresh (a stream's times start over). A
    /// camera opened again with pictures of the same kind and size goes on instead: their times are
    /// the run's clock, so the seconds kept before it was unplugged still lead up to a fire.
    /// `clockStamped`: their times are the run's clock, not the stream's; `maxRate`: packets a
    /// second at most (raw pictures: also what the budget affords).
    public func begin(_ stream: ClipStream, clockStamped: Bool = false, maxRate: Double? = nil) {
        lock.withLock {
            let goesOn = clockStamped && self.clockStamped && (self.stream?.takesPackets(of: stream) ?? false)
            self.stream = stream
            if !goesOn { (packets, head, bytes) = ([], 0, 0) }
            (ended, self.clockStamped) = (false, clockStamped)
            let picture = Double(stream.width * stream.height * 3)
            let least = maxRate.map { 1 / $0 } ?? 0
            gap = stream.isRaw ? max(least, keep * picture / Double(max(1, budget))) : least
        }
    }

    /// Whether a packet at `pts` would be kept (not thinned away): asked before a camera's picture
    /// is compressed.
    public func due(_ pts: Double) -> Bool {
        lock.withLock {
            guard gap > 0, head < packets.count, let last = packets.last else { return true }
            return pts - last.pts >= gap - 1e-6
        }
    }

    /// Whether its times are the run's clock (a camera's), so a fire's time is its frame's capture.
    public var isClockStamped: Bool { lock.withLock { clockStamped } }

    /// A video file: clips are cut from the file itself.
    public func useFile(_ path: String) { lock.withLock { file = path } }

    /// The source has ended: what is kept is all there will be.
    public func end() { lock.withLock { ended = true } }

    /// Keeps one packet (in decoding order); what is older than `keep` goes, from keyframe to keyframe.
    public func add(_ packet: ClipPacket) {
        lock.withLock {
            if gap > 0, head < packets.count, let last = packets.last, packet.pts - last.pts < gap - 1e-6 { return }
            packets.append(packet)
            bytes += packet.data.count
            let cutoff = packet.pts - keep
            var lastKey: Int?
            var i = head
            while i < packets.count, packets[i].dts <= cutoff {
                if packets[i].key { lastKey = i }
                i += 1
            }
            if let lastKey { drop(upTo: lastKey) }
            while bytes > budget, packets.count - head > 1 {
                // Over the budget: the oldest go, and what cannot be decoded without them.
                var next = head + 1
                while next < packets.count - 1, !packets[next].key { next += 1 }
                trimmed += next - head
                drop(upTo: next)
            }
        }
    }

    private func drop(upTo index: Int) {
        for i in head..<index { bytes -= packets[i].data.count }
        head = index
        if head > 256, head * 2 > packets.count {
            packets.removeFirst(head)
            head = 0
        }
    }

    /// The newest source time a clip can reach now: a file's is unbounded.
    public var reach: Double? {
        lock.withLock { file != nil ? .infinity : packets.last?.pts }
    }

    public var isEnded: Bool { lock.withLock { ended } }

    public var usage: Usage {
        lock.withLock {
            let live = packets[head...]
            let seconds = (live.last?.pts ?? 0) - (live.first?.pts ?? 0)
            return Usage(bytes: bytes, packets: live.count, seconds: max(0, seconds), overBudget: trimmed)
        }
    }

    /// The packets from the last keyframe at or before `from` (the first one kept, when the feed
    /// holds none that early) through `to`; nil when it holds nothing of that time.
    public func material(from: Double, to: Double) throws(MediaError) -> ClipMaterial? {
        let (path, kept) = lock.withLock { (file, stream.map { ($0, Array(packets[head...])) }) }
        if let path { return try Self.cut(path, from: from, to: to) }
        guard let (stream, all) = kept else { return nil }
        guard let first = all.lastIndex(where: { $0.key && $0.pts <= from }) ?? all.firstIndex(where: { $0.key && $0.pts <= to }) else {
            return nil
        }
        let chosen = all[first...].prefix { $0.dts <= to }
        return chosen.isEmpty ? nil : ClipMaterial(stream: stream, packets: Array(chosen), from: from)
    }

    /// A file's packets from the keyframe at or before `from` through `to`, read again from the file.
    static func cut(_ path: String, from: Double, to: Double) throws(MediaError) -> ClipMaterial? {
        let file = try MediaFile(path: path)
        let stream = try file.clipStream()
        file.seek(to: max(0, from))
        var packets: [ClipPacket] = []
        while let packet = try file.nextPacket(), packet.dts <= to {
            if packets.isEmpty && !packet.key { continue }
            packets.append(packet)
        }
        return packets.isEmpty ? nil : ClipMaterial(stream: stream, packets: packets, from: from)
    }
}

import Foundation
import LookCore
import Records

/// Keeps the clips' folder within `--keep-days` and `--keep-size`: clips older than the age go,
/// then the oldest until the rest fit the size. The newest clip always stays. Only this folder's
/// own clips (`clip-<epoch>-<n>.mp4`, regular files) are counted or removed, never through a link.
public struct ClipRetention: Sendable {
    public var folder: String
    /// Seconds a clip is kept, and the bytes all clips may take.
    public var age: Double
    public var bytes: Int

    public init(folder: String, age: Double, bytes: Int) { (self.folder, self.age, self.bytes) = (folder, age, bytes) }

    /// Removes what is past the limits; what went, and why (nil when nothing did).
    public func prune(now: Date) -> [ClipsRemoved] {
        var clips = Self.clips(in: folder)
        guard !clips.isEmpty else { return [] }
        let newest = clips.removeLast()
        var removed: [ClipsRemoved] = []
        let old = clips.prefix { now.timeIntervalSince($0.time) > age }
        if !old.isEmpty {
            removed.append(remove(Array(old), why: "older than \(Quantity.duration(age))"))
            clips.removeFirst(old.count)
        }
        var total = clips.reduce(newest.size) { $0 + $1.size }
        var over: [Clip] = []
        while total > bytes, !clips.isEmpty {
            let oldest = clips.removeFirst()
            over.append(oldest)
            total -= oldest.size
        }
        if !over.isEmpty { removed.append(remove(over, why: "over \(Quantity.bytes(Int64(bytes)))")) }
        return removed
    }

    struct Clip {
        var path: String
        var time: Date
        var size: Int
    }

    private func remove(_ clips: [Clip], why: String) -> ClipsRemoved {
        var gone: [String] = []
        var size = 0
        for clip in clips where unlink(clip.path) == 0 {
            gone.append(clip.path)
            size += clip.size
        }
        return ClipsRemoved(paths: gone, bytes: size, why: why)
    }

    /// The folder's clips, oldest first (by their time on the disk, then their name).
    static func clips(in folder: String) -> [Clip] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasPrefix("clip-") && $0.hasSuffix(".mp4") }.compactMap { name -> Clip? in
            let path = (folder as NSString).appendingPathComponent(name)
            var st = stat()
            guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return nil }
            let time = Date(timeIntervalSince1970: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9)
            return Clip(path: path, time: time, size: Int(st.st_size))
        }.sorted { ($0.time, $0.path) < ($1.time, $1.path) }
    }
}

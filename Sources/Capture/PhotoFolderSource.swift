import Foundation
import LookCore

/// A folder of photos shown one after another, each for `hold` seconds (0: the next photo every
/// frame), round and round: the seed's Example photos. Each frame is labelled with its photo's name.
public final class PhotoFolderSource: FrameSource {
    public let info: SourceInfo
    public let names: [String]
    private let images: [RGBImage]
    private let sizes: [(Int, Int)]
    private let hold: Double
    private let clock: SourceClock
    private var counter = 0
    private let folder: String
    private var lastIndex: Int?

    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp"]

    public init(folder: String, hold: Double = 4.5, maxSide: Int = 448, clock: any Clock = MonotonicClock()) throws(CaptureError) {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        guard !files.isEmpty else { throw .noPhotos(folder: folder) }
        var images: [RGBImage] = []
        var sizes: [(Int, Int)] = []
        for name in files {
            let path = (folder as NSString).appendingPathComponent(name)
            let full = try PhotoDecoder.decode(path: path, maxSide: 4096)
            let size = fittedSize(width: full.width, height: full.height, maxSide: maxSide)
            images.append(size == (full.width, full.height) ? full : full.resized(width: size.width, height: size.height))
            sizes.append((full.width, full.height))
        }
        self.names = files
        self.folder = folder
        self.images = images
        self.sizes = sizes
        self.hold = hold
        self.clock = SourceClock(clock: clock)
        info = SourceInfo(
            kind: "photos", name: folder, width: images[0].width, height: images[0].height,
            pace: hold > 0 ? "hold \(hold) s" : "next photo every frame", count: files.count)
    }

    public func pause() { clock.pause() }
    public func resume() { clock.resume() }
    public var position: Double? { clock.elapsed() }

    /// The photo last shown, decoded again at its own size (up to 4096 px).
    public func original() -> RGBImage? {
        guard let last = lastIndex else { return nil }
        return try? PhotoDecoder.decode(path: (folder as NSString).appendingPathComponent(names[last]), maxSide: 4096)
    }

    public func next() throws(CaptureError) -> Frame? {
        let elapsed = clock.elapsed()
        let index: Int
        let shownSince: Double
        if hold > 0 {
            let slot = Int(elapsed / hold)
            index = slot % images.count
            shownSince = Double(slot) * hold
        } else {
            index = counter % images.count
            counter += 1
            shownSince = elapsed
        }
        let now = clock.now()
        lastIndex = index
        var frame = Frame(
            image: images[index], captured: now, sourceTime: elapsed, age: 0,
            label: names[index], sourceSize: sizes[index])
        frame.shownAt = now - (elapsed - shownSince)
        return frame
    }
}

import Foundation
import LookCore

/// A folder of photos shown one after another, each for `hold` seconds (0: the next photo every
/// frame), round and round: the seed's Example photos. Each frame is labelled with its photo's name.
/// A photo is decoded when its turn comes (a folder of thousands costs one photo's memory), and one
/// that cannot be decoded is skipped with a warning, once; only a folder with none that decodes fails.
public final class PhotoFolderSource: FrameSource {
    public let info: SourceInfo
    public let names: [String]
    private let maxSide: Int
    private let hold: Double
    private let clock: SourceClock
    private var counter = 0
    private let folder: String
    private var lastIndex: Int?
    /// The photo on show, decoded (and fitted to `maxSide`), with its own size.
    private var current: (index: Int, image: RGBImage, size: (Int, Int))?
    /// Photos that could not be decoded: skipped from then on.
    private var bad: Set<Int> = []

    public static let extensions: Set<String> = ["jpg", "jpeg", "png", "webp"]

    public init(folder: String, hold: Double = 4.5, maxSide: Int = 448, clock: any Clock) throws(CaptureError) {
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { Self.extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
        guard !files.isEmpty else { throw .noPhotos(folder: folder) }
        self.names = files
        self.folder = folder
        self.maxSide = maxSide
        self.hold = hold
        self.clock = SourceClock(clock: clock)
        // The first photo that decodes gives the source's size; a folder with none fails here.
        var first: (index: Int, image: RGBImage, size: (Int, Int))?
        var lastProblem: CaptureError?
        for i in files.indices {
            do throws(CaptureError) {
                first = try Self.load((folder as NSString).appendingPathComponent(files[i]), index: i, maxSide: maxSide)
                break
            } catch {
                Log.shared.warning("\(error.description) It is skipped.")
                bad.insert(i)
                lastProblem = error
            }
        }
        guard let first else { throw lastProblem ?? .noPhotos(folder: folder) }
        current = first
        info = SourceInfo(
            kind: "photos", name: folder, width: first.image.width, height: first.image.height,
            pace: hold > 0 ? "hold \(hold) s" : "next photo every frame", count: files.count)
    }

    private static func load(_ path: String, index: Int, maxSide: Int) throws(CaptureError) -> (index: Int, image: RGBImage, size: (Int, Int)) {
        let full = try PhotoDecoder.decode(path: path, maxSide: 4096)
        let size = fittedSize(width: full.width, height: full.height, maxSide: maxSide)
        let image = size == (full.width, full.height) ? full : full.resized(width: size.width, height: size.height)
        return (index, image, (full.width, full.height))
    }

    /// The photo at `index`, or the next one after it that decodes (bad ones are skipped, once said).
    private func photo(from index: Int) -> (index: Int, image: RGBImage, size: (Int, Int))? {
        for step in 0..<names.count {
            let i = (index + step) % names.count
            if bad.contains(i) { continue }
            if let current, current.index == i { return current }
            do throws(CaptureError) {
                current = try Self.load((folder as NSString).appendingPathComponent(names[i]), index: i, maxSide: maxSide)
                return current
            } catch {
                Log.shared.warning("\(error.description) It is skipped.")
                bad.insert(i)
            }
        }
        return nil
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
            let slot = Int(saturating: elapsed / hold)
            index = slot % names.count
            shownSince = Double(slot) * hold
        } else {
            index = counter % names.count
            counter += 1
            shownSince = elapsed
        }
        guard let shown = photo(from: index) else { throw .noPhotos(folder: folder) }
        // Every frame the next photo: after a skipped one, the one after the photo shown.
        if hold <= 0 { counter = shown.index + 1 }
        let now = clock.now()
        lastIndex = shown.index
        var frame = Frame(
            image: shown.image, captured: now, sourceTime: elapsed, age: 0,
            label: names[shown.index], sourceSize: shown.size)
        frame.shownAt = now - (elapsed - shownSince)
        return frame
    }
}

import LookCore
import Rules

/// A picture as the gate compares it: about 64 cells across, greyscale, blurred.
struct Thumbnail {
    static let across = 64
    let width: Int
    let height: Int
    let cells: [Float]

    init(_ image: RGBImage) {
        let w = min(Self.across, image.width)
        let h = max(1, min(image.height, Int((Double(image.height) * Double(w) / Double(image.width)).rounded())))
        var sums = [Float](repeating: 0, count: w * h)
        var counts = [Float](repeating: 0, count: w * h)
        image.pixels.withUnsafeBufferPointer { p in
            for y in 0..<image.height {
                let cy = y * h / image.height
                var i = y * image.width * 3
                for x in 0..<image.width {
                    let c = cy * w + x * w / image.width
                    sums[c] += Float(77 * Int(p[i]) + 150 * Int(p[i + 1]) + 29 * Int(p[i + 2])) / 256
                    counts[c] += 1
                    i += 3
                }
            }
        }
        let grey = zip(sums, counts).map { $0 / max($1, 1) }
        // A 3 × 3 box blur (the edges average what they have).
        var blurred = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                var sum: Float = 0
                var n: Float = 0
                for dy in -1...1 where (0..<h).contains(y + dy) {
                    for dx in -1...1 where (0..<w).contains(x + dx) {
                        sum += grey[(y + dy) * w + x + dx]
                        n += 1
                    }
                }
                blurred[y * w + x] = sum / n
            }
        }
        (width, height, cells) = (w, h, blurred)
    }

    /// The share of unmasked cells that changed by more than `noise` from `old`, after taking off
    /// the median difference (a change of the whole picture's brightness).
    func change(from old: Thumbnail, masks: [GateMask], noise: Double) -> Double {
        guard old.width == width, old.height == height else { return 1 }
        var diffs: [Float] = []
        diffs.reserveCapacity(cells.count)
        for y in 0..<height {
            for x in 0..<width {
                let (fx, fy) = ((Double(x) + 0.5) / Double(width), (Double(y) + 0.5) / Double(height))
                if masks.contains(where: { $0.contains(x: fx, y: fy) }) { continue }
                diffs.append(cells[y * width + x] - old.cells[y * width + x])
            }
        }
        guard !diffs.isEmpty else { return 0 }
        let median = diffs.sorted()[diffs.count / 2]
        let changed = diffs.filter { abs($0 - median) > Float(noise) }.count
        return Double(changed) / Double(diffs.count)
    }
}

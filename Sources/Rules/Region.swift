/// The part of the frame a rule is asked about (`region: [x, y, w, h]`, fractions of the frame from
/// its top left). Rules that share a region share one question about that crop; each distinct region
/// costs one more encoding of a picture a frame.
public struct Region: Sendable, Hashable {
    public var x, y, w, h: Double

    public init(x: Double, y: Double, w: Double, h: Double) {
        (self.x, self.y, self.w, self.h) = (x, y, w, h)
    }

    static func make(_ numbers: [Double]) -> Result<Region, Problem> {
        guard numbers.count == 4 else { return .failure("region: is four numbers: [x, y, w, h]") }
        let (x, y, w, h) = (numbers[0], numbers[1], numbers[2], numbers[3])
        guard [x, y].allSatisfy({ (0..<1).contains($0) }), w > 0, h > 0, x + w <= 1.0001, y + h <= 1.0001 else {
            return .failure("region: [x, y, w, h] are fractions of the frame: 0 ≤ x, y < 1, w and h above 0, x + w and y + h at most 1")
        }
        return .success(Region(x: x, y: y, w: w, h: h))
    }

    var text: String { "[\([x, y, w, h].map { String($0) }.joined(separator: ", "))]" }
}

/// A picture as the model gets it: 8-bit RGB, row after row, no padding.
public struct RGBImage: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// `width * height * 3` bytes, red, green, blue.
    public var pixels: [UInt8]

    /// Wraps `pixels`; returns nil when the byte count does not match the size.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else { return nil }
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A picture of one colour.
    public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8)) {
        precondition(width > 0 && height > 0, "an image needs a positive size")
        self.width = width
        self.height = height
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for i in stride(from: 0, to: bytes.count, by: 3) {
            bytes[i] = fill.r; bytes[i + 1] = fill.g; bytes[i + 2] = fill.b
        }
        self.pixels = bytes
    }

    /// The pixel at column `x`, row `y`.
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        let i = (y * width + x) * 3
        return (pixels[i], pixels[i + 1], pixels[i + 2])
    }
}

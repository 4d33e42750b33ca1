/// How a stored picture must be turned to stand upright: the eight EXIF orientations (tag 0x0112).
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1, upMirrored, down, downMirrored, leftMirrored, right, rightMirrored, left

    /// Whether turning swaps width and height.
    public var swapsSides: Bool { rawValue >= 5 }
}

extension RGBImage {
    /// The picture turned upright from a picture stored with `orientation`.
    public func upright(from orientation: Orientation) -> RGBImage {
        if orientation == .up { return self }
        let outW = orientation.swapsSides ? height : width
        let outH = orientation.swapsSides ? width : height
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<outH {
                    for x in 0..<outW {
                        // (sx, sy): the stored pixel that lands at upright (x, y).
                        let (sx, sy): (Int, Int)
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (width - 1 - x, y)
                        case .down: (sx, sy) = (width - 1 - x, height - 1 - y)
                        case .downMirrored: (sx, sy) = (x, height - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, height - 1 - x)
                        case .rightMirrored: (sx, sy) = (width - 1 - y, height - 1 - x)
                        case .left: (sx, sy) = (width - 1 - y, x)
                        }
                        let s = (sy * width + sx) * 3
                        let d = (y * outW + x) * 3
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return RGBImage(width: outW, height: outH, pixels: out)!
    }
}

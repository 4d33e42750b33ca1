extension RGBImage {
    /// The part of the picture at `x`, `y` (fractions of its size, from the top left) of `w` × `h`
    /// (fractions), at least one pixel each way.
    public func cropped(x: Double, y: Double, w: Double, h: Double) -> RGBImage {
        let left = min(width - 1, max(0, Int((x * Double(width)).rounded(.down))))
        let top = min(height - 1, max(0, Int((y * Double(height)).rounded(.down))))
        let cw = max(1, min(width - left, Int((w * Double(width)).rounded())))
        let ch = max(1, min(height - top, Int((h * Double(height)).rounded())))
        var out = [UInt8]()
        out.reserveCapacity(cw * ch * 3)
        for row in top..<(top + ch) {
            let start = (row * width + left) * 3
            out += pixels[start..<(start + cw * 3)]
        }
        return RGBImage(width: cw, height: ch, pixels: out)!
    }
}

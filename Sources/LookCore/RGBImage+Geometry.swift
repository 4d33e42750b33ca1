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

extension RGBImage {
    /// The picture scaled to `width` × `height` by area averaging (box filter), for shrinking.
    public func resized(width w: Int, height h: Int) -> RGBImage {
        precondition(w > 0 && h > 0, "a picture needs a positive size")
        var out = [UInt8](repeating: 0, count: w * h * 3)
        let sx = Double(width) / Double(w), sy = Double(height) / Double(h)
        for y in 0..<h {
            let y0 = Int(Double(y) * sy), y1 = max(y0 + 1, min(height, Int(Double(y + 1) * sy)))
            for x in 0..<w {
                let x0 = Int(Double(x) * sx), x1 = max(x0 + 1, min(width, Int(Double(x + 1) * sx)))
                var r = 0, g = 0, b = 0
                for yy in y0..<y1 {
                    var i = (yy * width + x0) * 3
                    for _ in x0..<x1 { r += Int(pixels[i]); g += Int(pixels[i + 1]); b += Int(pixels[i + 2]); i += 3 }
                }
                let n = (y1 - y0) * (x1 - x0)
                let o = (y * w + x) * 3
                out[o] = UInt8(r / n); out[o + 1] = UInt8(g / n); out[o + 2] = UInt8(b / n)
            }
        }
        return RGBImage(width: w, height: h, pixels: out)!
    }
}

import LookCore

/// `--grid`: the nine cells of the 3 × 3 grid and their numbers drawn on the frame the model gets.
/// Lines and digits are white with a dark outline, so they read on light and dark pictures; both scale
/// with the picture (a digit is about a fifth of a cell's height, at least 7 pixels), so they stay readable
/// at any frame size.
public enum GridOverlay {
    /// The picture with the grid drawn on it.
    public static func draw(on image: RGBImage) -> RGBImage {
        var canvas = Canvas(image)
        let w = image.width, h = image.height
        let line = max(1, min(w, h) / 200)
        for k in 1...2 {
            let x = w * k / 3, y = h * k / 3
            canvas.fill(x: x - line - 1, y: 0, width: 2 * line + 2, height: h, colour: dark)
            canvas.fill(x: 0, y: y - line - 1, width: w, height: 2 * line + 2, colour: dark)
        }
        for k in 1...2 {
            let x = w * k / 3, y = h * k / 3
            canvas.fill(x: x - line, y: 0, width: 2 * line, height: h, colour: light)
            canvas.fill(x: 0, y: y - line, width: w, height: 2 * line, colour: light)
        }
        let dot = max(1, h / 3 / 5 / Digits.rows)
        for cell in 1...9 {
            let column = (cell - 1) % 3, row = (cell - 1) / 3
            let x = w * column / 3 + line + 2 * dot, y = h * row / 3 + line + 2 * dot
            canvas.digit(cell, x: x, y: y, dot: dot)
        }
        return canvas.image
    }

    static let light: (UInt8, UInt8, UInt8) = (255, 255, 255)
    static let dark: (UInt8, UInt8, UInt8) = (0, 0, 0)

    /// A picture to draw on, clipping at its edges.
    struct Canvas {
        var image: RGBImage
        init(_ image: RGBImage) { self.image = image }

        mutating func fill(x: Int, y: Int, width: Int, height: Int, colour: (UInt8, UInt8, UInt8)) {
            let x0 = max(0, x), x1 = min(image.width, x + width)
            let y0 = max(0, y), y1 = min(image.height, y + height)
            guard x0 < x1, y0 < y1 else { return }
            let w = image.width
            image.pixels.withUnsafeMutableBufferPointer { p in
                for row in y0..<y1 {
                    for column in x0..<x1 {
                        let i = (row * w + column) * 3
                        p[i] = colour.0; p[i + 1] = colour.1; p[i + 2] = colour.2
                    }
                }
            }
        }

        /// A digit drawn dot by dot, each dot `dot` pixels square, outlined.
        mutating func digit(_ n: Int, x: Int, y: Int, dot: Int) {
            let glyph = Digits.glyphs[n]
            for pass in 0..<2 {
                for (r, bits) in glyph.enumerated() {
                    for c in 0..<Digits.columns where bits & (1 << (Digits.columns - 1 - c)) != 0 {
                        let px = x + c * dot, py = y + r * dot
                        if pass == 0 {
                            fill(x: px - dot / 2 - 1, y: py - dot / 2 - 1, width: dot * 2 + 2, height: dot * 2 + 2, colour: dark)
                        } else {
                            fill(x: px, y: py, width: dot, height: dot, colour: light)
                        }
                    }
                }
            }
        }
    }
}

/// A 5 × 7 dot font for the digits 0–9.
enum Digits {
    static let columns = 5
    static let rows = 7
    static let glyphs: [[UInt8]] = [
        [0b01110, 0b10001, 0b10011, 0b10101, 0b11001, 0b10001, 0b01110], // 0
        [0b00100, 0b01100, 0b00100, 0b00100, 0b00100, 0b00100, 0b01110], // 1
        [0b01110, 0b10001, 0b00001, 0b00010, 0b00100, 0b01000, 0b11111], // 2
        [0b11111, 0b00010, 0b00100, 0b00010, 0b00001, 0b10001, 0b01110], // 3
        [0b00010, 0b00110, 0b01010, 0b10010, 0b11111, 0b00010, 0b00010], // 4
        [0b11111, 0b10000, 0b11110, 0b00001, 0b00001, 0b10001, 0b01110], // 5
        [0b00110, 0b01000, 0b10000, 0b11110, 0b10001, 0b10001, 0b01110], // 6
        [0b11111, 0b00001, 0b00010, 0b00100, 0b01000, 0b01000, 0b01000], // 7
        [0b01110, 0b10001, 0b10001, 0b01110, 0b10001, 0b10001, 0b01110], // 8
        [0b01110, 0b10001, 0b10001, 0b01111, 0b00001, 0b00010, 0b01100], // 9
    ]
}

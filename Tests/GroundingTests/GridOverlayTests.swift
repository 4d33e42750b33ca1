import LookCore
import XCTest

@testable import Grounding

/// `--grid`: lines at the thirds and a readable number in each cell, at any frame size.
final class GridOverlayTests: XCTestCase {
    private func isWhite(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> Bool { p.r == 255 && p.g == 255 && p.b == 255 }

    /// Reads the number drawn in a cell: the white dots in its top-left quarter matched against the
    /// font's glyphs (the one whose 35 dots all agree).
    private func read(_ image: RGBImage, cell: Int) -> (digit: Int?, height: Int) {
        let box = digitBox(image, cell: cell)
        guard box.height >= 7 else { return (nil, box.height) }
        let dot = box.height / 7
        for (digit, glyph) in Digits.glyphs.enumerated() {
            let firstColumn = (0..<5).first { c in glyph.contains { $0 & (1 << (4 - c)) != 0 } }!
            let matches = (0..<7).allSatisfy { r in
                (0..<5).allSatisfy { c in
                    let x = box.x + (c - firstColumn) * dot + dot / 2, y = box.y + r * dot + dot / 2
                    let on = x >= 0 && x < image.width && isWhite(image.pixel(x: x, y: y))
                    return on == (glyph[r] & (1 << (4 - c)) != 0)
                }
            }
            if matches { return (digit, box.height) }
        }
        return (nil, box.height)
    }

    /// The white pixels' bounding box inside a cell's top-left quarter: the cell's number.
    private func digitBox(_ image: RGBImage, cell: Int) -> (x: Int, y: Int, width: Int, height: Int, count: Int) {
        let cw = image.width / 3, ch = image.height / 3
        let x0 = (cell - 1) % 3 * cw, y0 = (cell - 1) / 3 * ch
        var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1, count = 0
        for y in (y0 + ch / 50 + 2)..<(y0 + ch / 2) {
            for x in (x0 + cw / 50 + 2)..<(x0 + cw / 2) where isWhite(image.pixel(x: x, y: y)) {
                // Skip the grid lines themselves (a white run across the whole cell).
                if isWhite(image.pixel(x: x0 + cw / 2, y: y)) && isWhite(image.pixel(x: x0 + cw / 4 * 3, y: y)) { continue }
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y); count += 1
            }
        }
        return count == 0 ? (0, 0, 0, 0, 0) : (minX, minY, maxX - minX + 1, maxY - minY + 1, count)
    }

    func testLinesAtTheThirdsAndANumberInEveryCell() {
        for (w, h) in [(448, 252), (1920, 1080), (120, 90)] {
            let image = GridOverlay.draw(on: RGBImage(width: w, height: h, fill: (90, 120, 60)))
            XCTAssertTrue(isWhite(image.pixel(x: w / 3, y: h - 2)), "\(w)×\(h): a line a third across")
            XCTAssertTrue(isWhite(image.pixel(x: w - 2, y: 2 * h / 3)), "\(w)×\(h): a line two thirds down")
            XCTAssertFalse(isWhite(image.pixel(x: w / 6 * 5, y: h / 6 * 5 + 3)), "\(w)×\(h): the cells' middles stay clear")
            for cell in 1...9 {
                let (digit, height) = read(image, cell: cell)
                XCTAssertEqual(digit, cell, "\(w)×\(h): cell \(cell) reads as its number")
                XCTAssertGreaterThanOrEqual(height, 7, "\(w)×\(h): cell \(cell)'s number is at least 7 px tall")
                XCTAssertGreaterThanOrEqual(height * 8, h / 3, "\(w)×\(h): and grows with the picture")
            }
        }
    }

    func testDigitsAreOutlinedSoTheyReadOnWhite() {
        let image = GridOverlay.draw(on: RGBImage(width: 448, height: 252, fill: (255, 255, 255)))
        let dark = image.pixels.enumerated().filter { $0.offset % 3 == 0 && $0.element == 0 }.count
        XCTAssertGreaterThan(dark, 500, "the lines and numbers have a dark outline")
    }
}

import LookCore
import XCTest

final class OrientationTests: XCTestCase {
    /// A 3 × 2 picture whose pixels are numbered 0…5 in the red channel, row by row:
    ///   0 1 2
    ///   3 4 5
    private let stored: RGBImage = {
        let pixels: [UInt8] = (0..<6).flatMap { i -> [UInt8] in [UInt8(i), 0, 0] }
        return RGBImage(width: 3, height: 2, pixels: pixels)!
    }()

    private func rows(_ image: RGBImage) -> [[UInt8]] {
        (0..<image.height).map { y in (0..<image.width).map { x in image.pixel(x: x, y: y).r } }
    }

    func testEachOrientationTurnsThePictureUpright() {
        // What a viewer shows for each EXIF orientation of the stored picture above.
        let expected: [Orientation: [[UInt8]]] = [
            .up: [[0, 1, 2], [3, 4, 5]],
            .upMirrored: [[2, 1, 0], [5, 4, 3]],
            .down: [[5, 4, 3], [2, 1, 0]],
            .downMirrored: [[3, 4, 5], [0, 1, 2]],
            .leftMirrored: [[0, 3], [1, 4], [2, 5]], // transpose
            .right: [[3, 0], [4, 1], [5, 2]], // turned 90° clockwise
            .rightMirrored: [[5, 2], [4, 1], [3, 0]], // transverse
            .left: [[2, 5], [1, 4], [0, 3]], // turned 90° counter-clockwise
        ]
        for orientation in Orientation.allCases {
            let upright = stored.upright(from: orientation)
            XCTAssertEqual(rows(upright), expected[orientation], "\(orientation)")
            XCTAssertEqual(upright.width, orientation.swapsSides ? 2 : 3, "\(orientation)")
        }
    }

    func testTurningKeepsAllThreeChannels() {
        let image = RGBImage(width: 2, height: 1, pixels: [10, 20, 30, 40, 50, 60])!
        let turned = image.upright(from: .right)
        XCTAssertEqual(turned.pixels, [10, 20, 30, 40, 50, 60])
        XCTAssertEqual(turned.width, 1)
        XCTAssertEqual(turned.height, 2)
    }

    func testImageRejectsAWrongByteCount() {
        XCTAssertNil(RGBImage(width: 2, height: 2, pixels: [0, 0, 0]))
        XCTAssertNil(RGBImage(width: 0, height: 2, pixels: []))
    }
}

import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Capture

final class PhotoDecoderTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func assertColor(
        _ image: RGBImage, x: Int, y: Int, near expected: (Int, Int, Int),
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let p = image.pixel(x: x, y: y)
        let distance = abs(Int(p.r) - expected.0) + abs(Int(p.g) - expected.1) + abs(Int(p.b) - expected.2)
        XCTAssertLessThan(distance, 40, "pixel (\(x), \(y)) is \(p), expected about \(expected)", file: file, line: line)
    }

    func testDecodesJPEGPNGAndWebPAtTheirSize() throws {
        for ext in ["jpg", "png", "webp"] {
            let file = path("red.\(ext)")
            try TestMedia.photo(file, width: 120, height: 80, source: "color=c=red")
            let image = try PhotoDecoder.decode(path: file)
            XCTAssertEqual([image.width, image.height], [120, 80], ext)
            assertColor(image, x: 60, y: 40, near: (255, 0, 0))
        }
    }

    func testTurnsAPhotoUprightByItsEXIFOrientation() throws {
        // Stored 200 × 100: left half blue, right half yellow. Orientation 6 means "turn 90° clockwise
        // to view", so upright it is 100 × 200 with blue on top.
        let png = path("halves.png"), jpg = path("halves.jpg")
        try TestMedia.writePNG(TestMedia.halves(width: 200, height: 100, left: (0, 0, 255), right: (255, 255, 0)), to: png)
        try Subprocess.shell("ffmpeg -v error -y -i '\(png)' -q:v 2 '\(jpg)'")
        try TestMedia.addEXIFOrientation(6, toJPEG: jpg)
        let image = try PhotoDecoder.decode(path: jpg)
        XCTAssertEqual([image.width, image.height], [100, 200])
        assertColor(image, x: 50, y: 30, near: (0, 0, 255))
        assertColor(image, x: 50, y: 170, near: (255, 255, 0))
    }

    func testAPhotoOver4096IsReducedToALongSideOf4096() throws {
        let file = path("big.jpg")
        try TestMedia.photo(file, width: 5000, height: 3000)
        let image = try PhotoDecoder.decode(path: file)
        XCTAssertEqual([image.width, image.height], [4096, 2458])
    }

    func testAVeryLargeJPEGIsSubsampledWhileDecoding() throws {
        // 8800 px: the decoder halves it (lowres 1) and scaling brings the long side to 4096.
        XCTAssertEqual(PhotoDecoder.reduction(width: 8800, height: 1000, maxLowres: 3, maxSide: 4096), 1)
        XCTAssertEqual(PhotoDecoder.reduction(width: 40000, height: 10, maxLowres: 3, maxSide: 4096), 3)
        XCTAssertEqual(PhotoDecoder.reduction(width: 5000, height: 3000, maxLowres: 3, maxSide: 4096), 0)
        XCTAssertEqual(PhotoDecoder.reduction(width: 9000, height: 9000, maxLowres: 0, maxSide: 4096), 0)
        let file = path("wide.jpg")
        try TestMedia.photo(file, width: 8800, height: 1000, source: "color=c=green")
        let image = try PhotoDecoder.decode(path: file)
        XCTAssertEqual([image.width, image.height], [4096, 465])
        assertColor(image, x: 2000, y: 200, near: (0, 128, 0))
    }

    func testAMissingPhotoIsNoPhoto() {
        XCTAssertThrowsError(try PhotoDecoder.decode(path: path("nothing.jpg"))) { error in
            XCTAssertEqual(error as? CaptureError, .noPhoto(path: path("nothing.jpg")))
            XCTAssertTrue("\(error)".hasPrefix("Choose a photo first"))
        }
        XCTAssertThrowsError(try PhotoDecoder.decode(path: dir.path)) { error in
            XCTAssertEqual(error as? CaptureError, .unreadablePhoto(path: dir.path, reason: "it is a folder, not a photo"), "a folder is there")
        }
    }

    /// A FIFO named like a photo (in a watched folder, or given to `lookd ask`) is refused at once,
    /// never read: nothing would ever come, and the watch could not stop.
    func testAPipeNamedLikeAPhotoIsRefusedNotWaitedOn() throws {
        let fifo = path("x.jpg")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let started = Date()
        XCTAssertThrowsError(try PhotoDecoder.decode(path: fifo)) { XCTAssertTrue("\($0)".contains("not a regular file"), "\($0)") }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
    }

    func testACorruptOrNonImageFileCannotBeRead() throws {
        let good = path("good.jpg")
        try TestMedia.photo(good, width: 64, height: 64)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: good))
        let corrupt = path("corrupt.jpg")
        try bytes.prefix(40).write(to: URL(fileURLWithPath: corrupt))
        let text = path("notes.jpg")
        try Data("these are not pixels\n".utf8).write(to: URL(fileURLWithPath: text))
        let empty = path("empty.png")
        try Data().write(to: URL(fileURLWithPath: empty))
        for file in [corrupt, text, empty] {
            XCTAssertThrowsError(try PhotoDecoder.decode(path: file)) { error in
                guard case .unreadablePhoto(let p, _)? = error as? CaptureError else {
                    return XCTFail("\(file): \(error)")
                }
                XCTAssertEqual(p, file)
                XCTAssertTrue("\(error)".hasPrefix("Could not read that photo"), "\(error)")
            }
        }
    }
}

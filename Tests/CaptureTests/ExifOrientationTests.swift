import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Capture

final class ExifOrientationTests: XCTestCase {
    /// A big-endian TIFF block with IFD0 holding one orientation entry.
    private func tiff(_ value: UInt8, littleEndian: Bool = false) -> [UInt8] {
        littleEndian
            ? [
                0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x01, 0x00,
                0x12, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, value, 0x00, 0x00, 0x00, 0, 0, 0, 0,
            ]
            : [
                0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01,
                0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, value, 0x00, 0x00, 0, 0, 0, 0,
            ]
    }

    func testReadsJPEGApp1() throws {
        let dir = try Fixtures.scratch()
        let path = dir.appendingPathComponent("p.jpg").path
        try TestMedia.photo(path, width: 32, height: 16)
        XCTAssertNil(ExifOrientation.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))))
        try TestMedia.addEXIFOrientation(6, toJPEG: path)
        XCTAssertEqual(ExifOrientation.read([UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))), .right)
    }

    func testReadsLittleEndianTIFF() {
        XCTAssertEqual(ExifOrientation.orientation(inTIFF: tiff(8, littleEndian: true)), .left)
        XCTAssertEqual(ExifOrientation.orientation(inTIFF: tiff(3)), .down)
        XCTAssertNil(ExifOrientation.orientation(inTIFF: tiff(9))) // not an orientation
    }

    func testReadsPNGeXIfAndWebPEXIF() {
        let t = tiff(6)
        var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        png += [0, 0, 0, UInt8(t.count)] + Array("eXIf".utf8) + t + [0, 0, 0, 0]
        XCTAssertEqual(ExifOrientation.read(png), .right)

        var webp: [UInt8] = Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8)
        webp += Array("VP8X".utf8) + [10, 0, 0, 0] + [UInt8](repeating: 0, count: 10)
        webp += Array("EXIF".utf8) + [UInt8(t.count), 0, 0, 0] + t
        XCTAssertEqual(ExifOrientation.read(webp), .right)
    }

    func testAnyBytesGiveAnOrientationOrNothingWithoutTrapping() {
        var generator = SystemRandomNumberGenerator()
        let seeds: [[UInt8]] = [
            [0xFF, 0xD8, 0xFF, 0xE1], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
            Array("RIFF".utf8) + [0, 0, 0, 0] + Array("WEBP".utf8), Array("Exif".utf8),
        ]
        for i in 0..<3000 {
            var bytes = seeds[i % seeds.count]
            bytes += (0..<Int.random(in: 0...64, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = ExifOrientation.read(bytes)
            // A valid file cut anywhere is handled too.
            let whole = [0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x22] + Array("Exif".utf8) + [0, 0] + tiff(6)
            _ = ExifOrientation.read(Array(whole.prefix(i % whole.count)))
        }
    }
}

import Foundation
import TestSupport
import XCTest

@testable import Media

/// An open that fails half way frees exactly what it made: the file, the packet, the frame, the
/// contexts (before each was its own object, the format context and its descriptor leaked on every
/// failed open, and the stream reconnect loop went through that on every retry).
final class MediaFileLifetimeTests: XCTestCase {
    func testAFileThatFailsLateLeavesNoDescriptorAndNoContextBehind() throws {
        let dir = try Fixtures.scratch()
        // Sound only: the container opens, then "it holds no picture" after its streams are read.
        let audio = dir.appendingPathComponent("tone.wav").path
        try Subprocess.shell("ffmpeg -v error -y -f lavfi -i 'sine=frequency=440:duration=0.2' '\(audio)'")
        let descriptors = OpenDescriptors.count(to: audio)
        let live = (InputFormat.live.value, CodecContext.live.value, Packet.live.value, Picture.live.value)
        for _ in 0..<20 {
            XCTAssertThrowsError(try MediaFile(path: audio)) { error in
                XCTAssertEqual((error as? MediaError)?.reason, "it holds no picture")
            }
        }
        // Counted on the file alone: the test process's other threads open and close descriptors too.
        XCTAssertEqual(OpenDescriptors.count(to: audio), descriptors, "each failed open closed its file")
        XCTAssertEqual(InputFormat.live.value, live.0)
        XCTAssertEqual(CodecContext.live.value, live.1)
        XCTAssertEqual(Packet.live.value, live.2)
        XCTAssertEqual(Picture.live.value, live.3)
    }

    func testAnOpenFileHoldsOneOfEachAndFreesThemWhenItGoes() throws {
        let dir = try Fixtures.scratch()
        let photo = dir.appendingPathComponent("p.png").path
        try TestMedia.photo(photo, width: 64, height: 48)
        let live = (InputFormat.live.value, CodecContext.live.value, Packet.live.value, Picture.live.value)
        var file: MediaFile? = try MediaFile(path: photo)
        XCTAssertEqual(InputFormat.live.value, live.0 + 1)
        XCTAssertEqual(CodecContext.live.value, live.1 + 1)
        XCTAssertEqual(Packet.live.value, live.2 + 1)
        XCTAssertEqual(Picture.live.value, live.3 + 1)
        XCTAssertNotNil(file)
        file = nil
        XCTAssertEqual(InputFormat.live.value, live.0)
        XCTAssertEqual(CodecContext.live.value, live.1)
        XCTAssertEqual(Packet.live.value, live.2)
        XCTAssertEqual(Picture.live.value, live.3)
    }
}

import Capture
import Foundation
import LookCore
import TestSupport
import XCTest

final class PhotoFolderSourceTests: XCTestCase {
    private func folder() throws -> String {
        let dir = try Fixtures.scratch()
        try TestMedia.photo(dir.appendingPathComponent("b-object.png").path, width: 300, height: 200, source: "color=c=green")
        try TestMedia.photo(dir.appendingPathComponent("a-sign.jpg").path, width: 1200, height: 800, source: "color=c=red")
        try TestMedia.photo(dir.appendingPathComponent("c-scene.webp").path, width: 200, height: 300, source: "color=c=blue")
        try Data("not a photo".utf8).write(to: dir.appendingPathComponent("notes.txt"))
        return dir.path
    }

    func testEachPhotoHoldsForItsSecondsRoundAndRound() throws {
        let clock = ManualClock()
        let source = try PhotoFolderSource(folder: try folder(), hold: 4.5, maxSide: 448, clock: clock)
        XCTAssertEqual(source.names, ["a-sign.jpg", "b-object.png", "c-scene.webp"])
        var labels: [String] = []
        for _ in 0..<12 {
            let frame = try XCTUnwrap(try source.next())
            labels.append(try XCTUnwrap(frame.label))
            clock.advance(1.5)
        }
        XCTAssertEqual(
            labels,
            [
                "a-sign.jpg", "a-sign.jpg", "a-sign.jpg", "b-object.png", "b-object.png", "b-object.png",
                "c-scene.webp", "c-scene.webp", "c-scene.webp", "a-sign.jpg", "a-sign.jpg", "a-sign.jpg",
            ])
        clock.set(2000)
        let frame = try XCTUnwrap(try source.next())
        XCTAssertNotNil(frame.shownAt)
        XCTAssertEqual([frame.image.width, frame.image.height].max(), 448, "scaled for the model")
    }

    func testHoldZeroShowsTheNextPhotoEveryFrame() throws {
        let source = try PhotoFolderSource(folder: try folder(), hold: 0, clock: ManualClock())
        let labels = try (0..<4).map { _ in try source.next()?.label }
        XCTAssertEqual(labels, ["a-sign.jpg", "b-object.png", "c-scene.webp", "a-sign.jpg"])
        let first = try XCTUnwrap(try PhotoFolderSource(folder: try folder(), hold: 0, clock: MonotonicClock()).next())
        XCTAssertEqual([first.image.width, first.image.height], [448, 299])
        let p = first.image.pixel(x: 10, y: 10)
        XCTAssertGreaterThan(Int(p.r), 200)
    }

    /// A corrupt photo (in the middle, or first) is skipped; the others are shown, each decoded in turn.
    func testACorruptPhotoIsSkippedNotTheWatch() throws {
        let dir = try folder()
        try Data("not a jpeg at all".utf8).write(to: URL(fileURLWithPath: dir).appendingPathComponent("b-broken.jpg"))
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: dir).appendingPathComponent("0-first.jpg"))
        let source = try PhotoFolderSource(folder: dir, hold: 0, clock: ManualClock())
        let labels = try (0..<5).map { _ in try source.next()?.label }
        XCTAssertEqual(labels, ["a-sign.jpg", "b-object.png", "c-scene.webp", "a-sign.jpg", "b-object.png"])
        let empty = try Fixtures.scratch()
        try Data("x".utf8).write(to: empty.appendingPathComponent("only.png"))
        XCTAssertThrowsError(try PhotoFolderSource(folder: empty.path, clock: MonotonicClock()), "no photo at all decodes: that is an error")
    }

    func testAFolderWithoutPhotos() throws {
        let dir = try Fixtures.scratch()
        XCTAssertThrowsError(try PhotoFolderSource(folder: dir.path, clock: MonotonicClock())) { error in
            XCTAssertEqual("\(error)", "There are no photos in \(dir.path) (JPEG, PNG or WebP files).")
        }
    }
}

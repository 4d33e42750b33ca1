import Foundation
import Platform
import TestSupport
import XCTest

/// Hardening 6: a folder lookd writes into is opened once; another user swapping it for her link to
/// a root-only folder afterwards cannot redirect a write.
final class FolderTests: XCTestCase {
    func testAFolderSwappedForALinkAfterItWasOpenedGetsNoWrite() throws {
        let dir = try Fixtures.scratch()
        let (hers, secret) = (dir.appendingPathComponent("snaps").path, dir.appendingPathComponent("root-only").path)
        for folder in [hers, secret] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let folder = try Folder(hers)
        XCTAssertEqual(try folder.create(stem: "fire-1-00001", ext: "jpg", bytes: [1]), "fire-1-00001.jpg")
        // The swap: her folder moved away, a link to the root-only folder in its place.
        try FileManager.default.moveItem(atPath: hers, toPath: hers + ".moved")
        try FileManager.default.createSymbolicLink(atPath: hers, withDestinationPath: secret)
        let name = try folder.create(stem: "fire-1-00002", ext: "jpg", bytes: [2])
        try folder.replace("frame-00001.png", bytes: [3])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: secret), [], "nothing reached the root-only folder")
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: hers + ".moved")), ["fire-1-00001.jpg", name, "frame-00001.png"])
        // Opened anew, the link is refused: a folder lookd writes is never reached through a link.
        XCTAssertThrowsError(try Folder(hers))
        // A name taken is never written over; the listing and removal go through the descriptor too.
        XCTAssertEqual(try folder.create(stem: "fire-1-00002", ext: "jpg", bytes: [4]), "fire-1-00002-2.jpg")
        XCTAssertEqual(Set(folder.files().map(\.name)), ["fire-1-00001.jpg", "fire-1-00002.jpg", "fire-1-00002-2.jpg", "frame-00001.png"])
        folder.remove("fire-1-00001.jpg")
        XCTAssertFalse(FileManager.default.fileExists(atPath: hers + ".moved/fire-1-00001.jpg"))
    }
}

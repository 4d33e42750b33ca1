import Foundation
import LookCore
import TestSupport
import XCTest

@testable import Media

/// Hardening 6: a file a muxer writes by path (an effect's animation, a clip) is made in its folder's
/// descriptor: the folder swapped for another user's link to a root-only folder while it is being
/// written cannot redirect it, and nothing half-written is left behind.
final class MuxedFileFolderTests: XCTestCase {
    func testAnAnimationWhoseFolderIsSwappedForALinkMidwayLandsInItsOwnFolder() throws {
        let dir = try Fixtures.scratch()
        let (hers, secret) = (dir.appendingPathComponent("effects").path, dir.appendingPathComponent("root-only").path)
        for folder in [hers, secret] { try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let writer = try APNGWriter(path: hers + "/edit1.apng", width: 16, height: 16, fps: 10)
        try writer.add(RGBImage(width: 16, height: 16, fill: (200, 200, 200)))
        try FileManager.default.moveItem(atPath: hers, toPath: hers + ".moved")
        try FileManager.default.createSymbolicLink(atPath: hers, withDestinationPath: secret)
        try writer.add(RGBImage(width: 16, height: 16, fill: (20, 20, 20)))
        try writer.finish()
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: secret), [], "nothing reached the root-only folder")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: hers + ".moved"), ["edit1.apng"], "placed whole, no part left")
        let size = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: hers + ".moved/edit1.apng")[.size] as? Int)
        XCTAssertGreaterThan(size, 100)
    }

    func testAnUnfinishedAnimationLeavesNothing() throws {
        let dir = try Fixtures.scratch()
        do {
            let writer = try APNGWriter(path: dir.path + "/edit1.apng", width: 16, height: 16, fps: 10)
            try writer.add(RGBImage(width: 16, height: 16, fill: (9, 9, 9)))
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [])
    }
}

import Foundation
import LookCore
import Outputs
import Records
import TestSupport
import XCTest

/// The clips' folder kept within `--keep-days` and `--keep-size`: the oldest go first, the newest
/// stays, and nothing but the folder's own clips is counted or removed.
final class ClipRetentionTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    /// A clip of `size` bytes last written `age` seconds before `now`.
    private func clip(_ name: String, size: Int, age: Double, now: Date) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try Data(repeating: 1, count: size).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(-age)], ofItemAtPath: path)
        return path
    }

    func testTheOldestGoFirstByAgeThenBySize() throws {
        let now = Date()
        let a = try clip("clip-1-1.mp4", size: 400, age: 40 * 86400, now: now)
        let b = try clip("clip-2-2.mp4", size: 400, age: 3000, now: now)
        let c = try clip("clip-3-3.mp4", size: 400, age: 2000, now: now)
        let d = try clip("clip-4-4.mp4", size: 400, age: 1000, now: now)
        let e = try clip("clip-5-5.mp4", size: 400, age: 10, now: now)
        let other = try clip("notes.mp4", size: 5000, age: 50 * 86400, now: now)
        try FileManager.default.createSymbolicLink(atPath: dir.appendingPathComponent("clip-0-0.mp4").path, withDestinationPath: other)
        let removed = ClipRetention(folder: dir.path, age: 30 * 86400, bytes: 1000).prune(now: now)
        XCTAssertEqual(removed.map(\.paths), [[a], [b, c]])
        XCTAssertEqual(removed.map(\.why), ["older than 30 d", "over 1.00 KB"])
        XCTAssertEqual(removed.map(\.bytes), [400, 800])
        for gone in [a, b, c] { XCTAssertFalse(FileManager.default.fileExists(atPath: gone)) }
        for kept in [d, e, other] { XCTAssertTrue(FileManager.default.fileExists(atPath: kept)) }
        XCTAssertNotNil(
            try? FileManager.default.destinationOfSymbolicLink(atPath: dir.appendingPathComponent("clip-0-0.mp4").path), "a link is left alone")
    }

    func testTheNewestStaysEvenOverTheSize() throws {
        let now = Date()
        let old = try clip("clip-1-1.mp4", size: 4000, age: 100, now: now)
        let new = try clip("clip-2-2.mp4", size: 4000, age: 1, now: now)
        let removed = ClipRetention(folder: dir.path, age: 86400, bytes: 1000).prune(now: now)
        XCTAssertEqual(removed.flatMap(\.paths), [old])
        XCTAssertTrue(FileManager.default.fileExists(atPath: new))
        XCTAssertTrue(ClipRetention(folder: dir.path, age: 86400, bytes: 1000).prune(now: now).isEmpty)
    }

    func testSizesAreReadAsPeopleWriteThem() {
        XCTAssertEqual(Quantity.parseBytes("2G"), 2_000_000_000)
        XCTAssertEqual(Quantity.parseBytes("500M"), 500_000_000)
        XCTAssertEqual(Quantity.parseBytes("1.5GB"), 1_500_000_000)
        XCTAssertEqual(Quantity.parseBytes("800k"), 800_000)
        XCTAssertEqual(Quantity.parseBytes("4096"), 4096)
        for bad in ["", "G", "-1G", "2X", "nan", "1e30"] { XCTAssertNil(Quantity.parseBytes(bad), bad) }
    }
}

import Foundation
import LookCore
import TestSupport
import VLM
import XCTest

@testable import ModelStore

/// The int8 tower's copy in the model cache is checked at load against the checksum recorded when it
/// was made: a copy cut short or with damaged bytes is made again, never loaded.
final class VisionCopyChecksumTests: XCTestCase {
    private func copies() throws -> VisionCopies { VisionCopies(cache: ModelCache(root: try Fixtures.scratch().path)) }

    func testACopyIsMadeWithItsChecksumAndUsedAsItIs() throws {
        let copies = try copies()
        let path = try copies.prepare(Fixtures.mmproj47, choice: .q8_0)
        let sum = try String(contentsOfFile: path + ".sha256", encoding: .utf8)
        XCTAssertEqual(sum.split(separator: " ").first.map(String.init), SHA256.hex(ofFile: path))
        let made = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
        XCTAssertEqual(try copies.prepare(Fixtures.mmproj47, choice: .q8_0), path)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date, made, "a sound copy is not made again")
    }

    func testACopyCutShortIsMadeAgain() throws {
        let copies = try copies()
        let path = try copies.prepare(Fixtures.mmproj47, choice: .q8_0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(truncate(path, off_t(whole.count / 2)), 0)
        XCTAssertEqual(copies.state(of: Fixtures.mmproj47, choice: .q8_0), .toMake(path: path), "its size no longer matches")
        XCTAssertEqual(try copies.prepare(Fixtures.mmproj47, choice: .q8_0), path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), whole, "made again, whole")
    }

    func testACopyWithDamagedBytesIsMadeAgain() throws {
        let copies = try copies()
        let path = try copies.prepare(Fixtures.mmproj47, choice: .q8_0)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        var damaged = whole
        damaged[damaged.count - 100] ^= 0xFF
        try damaged.write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(copies.state(of: Fixtures.mmproj47, choice: .q8_0), .copy(path: path), "the size and header still match")
        XCTAssertEqual(try copies.prepare(Fixtures.mmproj47, choice: .q8_0), path)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), whole, "the damaged byte is gone")
    }
}

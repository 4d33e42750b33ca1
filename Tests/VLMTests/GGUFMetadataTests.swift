import Foundation
import TestSupport
import VLM
import XCTest

final class GGUFMetadataTests: XCTestCase {
    func testReadsTheFixturePair() throws {
        let model = try GGUFMetadata.read(path: Fixtures.model)
        XCTAssertEqual(model.version, 3)
        XCTAssertEqual(model.string("general.architecture"), "qwen35")
        XCTAssertEqual(model.integer("qwen35.embedding_length"), 64)
        let mmproj = try GGUFMetadata.read(path: Fixtures.mmproj)
        XCTAssertEqual(mmproj.string("general.architecture"), "clip")
        XCTAssertEqual(mmproj.string("clip.projector_type"), "minicpmv4_6")
    }

    func testNotAGGUF() {
        XCTAssertThrowsError(try GGUFMetadata.parse(Data("hello world".utf8))) { error in
            XCTAssertEqual(error as? GGUFMetadata.ReadError, .notGGUF(magic: Array("hell".utf8)))
        }
        XCTAssertThrowsError(try GGUFMetadata.read(path: "/nonexistent/model.gguf")) { error in
            XCTAssertEqual(error as? GGUFMetadata.ReadError, .missing)
        }
    }

    func testTruncatedOrDamagedHeadersThrowAndNeverTrap() throws {
        let whole = try Data(contentsOf: URL(fileURLWithPath: Fixtures.mmproj)).prefix(40_000)
        var cuts = 0
        for length in stride(from: 4, to: 6000, by: 7) {
            if (try? GGUFMetadata.parse(whole.prefix(length))) == nil { cuts += 1 }
        }
        XCTAssertGreaterThan(cuts, 100)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            var bytes = [UInt8](whole.prefix(600))
            for _ in 0..<4 { bytes[Int.random(in: 4..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator) }
            _ = try? GGUFMetadata.parse(Data(bytes))
        }
    }
}

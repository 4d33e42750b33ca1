import Foundation
import ModelStore
import TestSupport
import XCTest

/// A new user copies a model's files into the cache by hand, with the names the repo publishes.
final class ModelCacheCopyTests: XCTestCase {
    func testFilesCopiedInWithTheirPublishedNamesAreFound() throws {
        let root = try Fixtures.scratch()
        let cache = ModelCache(root: root.path)
        XCTAssertNil(cache.present("minicpm-v-4.6"))
        let dir = root.appendingPathComponent("minicpm-v-4.6")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let models = Fixtures.root.appendingPathComponent("Tests/Fixtures/models")
        try FileManager.default.copyItem(
            at: models.appendingPathComponent("tiny-minicpmv-Q8_0.gguf"), to: dir.appendingPathComponent("MiniCPM-V-4_6-Q8_0.gguf"))
        XCTAssertNil(cache.present("minicpm-v-4.6"), "no mmproj yet")
        try FileManager.default.copyItem(
            at: models.appendingPathComponent("tiny-minicpmv-mmproj-Q8_0.gguf"), to: dir.appendingPathComponent("mmproj-model-f16.gguf"))
        let manifest = try XCTUnwrap(cache.present("minicpm-v-4.6"))
        XCTAssertEqual(manifest.model.name, "MiniCPM-V-4_6-Q8_0.gguf")
        XCTAssertEqual(manifest.mmproj.name, "mmproj-model-f16.gguf")
        XCTAssertEqual(cache.paths(manifest).model, dir.appendingPathComponent("MiniCPM-V-4_6-Q8_0.gguf").path)
    }
}

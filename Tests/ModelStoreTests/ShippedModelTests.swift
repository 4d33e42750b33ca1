import Foundation
import LookCore
import ModelStore
import TestFixtures
import TestSupport
import VLM
import XCTest

/// lookd's own model (`models/shapes-tiny/`): never downloaded; the first use copies it into the
/// cache, checked against its SHA256SUMS.
final class ShippedModelTests: XCTestCase {
    private let shipped = Fixtures.root.appendingPathComponent("models").path

    private func puller(cache: String, own: String) -> ModelPuller {
        // No Hub at all: HF_ENDPOINT points at a closed port, so a download attempt would fail.
        ModelPuller(
            cache: ModelCache(root: cache), environment: ["LOOKD_OWN_MODELS": own, "HF_ENDPOINT": "http://127.0.0.1:9"], clock: MonotonicClock())
    }

    func testTheShippedModelIsCopiedInCheckedAndLoads() throws {
        let cache = try Fixtures.scratch().path
        let manifest = try puller(cache: cache, own: shipped).pull("shapes-tiny")
        XCTAssertEqual(manifest.model.name, "shapes-tiny-Q8_0.gguf")
        XCTAssertEqual(manifest.mmproj.name, "shapes-tiny-mmproj-F16.gguf")
        let paths = ModelCache(root: cache).paths(manifest)
        XCTAssertEqual(SHA256.hex(ofFile: paths.model), SHA256.hex(ofFile: "\(shipped)/shapes-tiny/shapes-tiny-Q8_0.gguf"))
        XCTAssertEqual(manifest.model.sha256, SHA256.hex(ofFile: paths.model))
        let engine = try LlamaEngine(modelPath: paths.model, mmprojPath: paths.mmproj, clock: MonotonicClock())
        XCTAssertEqual(engine.pair.verdict, .canvas(.fromFile(key: "qwen35.rope.mrope_time_slot", value: "3")))
        // A second use finds it in place and copies nothing.
        let stamp = try FileManager.default.attributesOfItem(atPath: paths.model)
        XCTAssertEqual(try puller(cache: cache, own: shipped).pull("shapes-tiny"), manifest)
        let after = try FileManager.default.attributesOfItem(atPath: paths.model)
        XCTAssertEqual(after[.systemFileNumber] as? Int, stamp[.systemFileNumber] as? Int, "the same file, not a new copy")
        XCTAssertEqual(after[.modificationDate] as? Date, stamp[.modificationDate] as? Date)
        XCTAssertTrue(ModelCache(root: cache).catalogLines().contains { $0.contains("shapes-tiny") && $0.contains("present") })
    }

    func testAGitLFSPointerIsRefusedAndNothingIsCopied() throws {
        let own = try Fixtures.scratch()
        let folder = own.appendingPathComponent("shapes-tiny")
        try FileManager.default.copyItem(atPath: "\(shipped)/shapes-tiny", toPath: folder.path)
        let pointer = "version https://git-lfs.github.com/spec/v1\noid sha256:0000\nsize 9000000\n"
        try Data(pointer.utf8).write(to: folder.appendingPathComponent("shapes-tiny-mmproj-F16.gguf"))
        let cache = try Fixtures.scratch().path
        XCTAssertThrowsError(try puller(cache: cache, own: own.path).pull("shapes-tiny")) { error in
            XCTAssertTrue("\(error)".contains("Git LFS pointer"), "\(error)")
            XCTAssertTrue("\(error)".contains("shapes-tiny-mmproj-F16.gguf"), "\(error)")
        }
        XCTAssertNil(ModelCache(root: cache).present("shapes-tiny"))
    }

    func testAnInstallationWithoutItSaysWhereItShouldBe() throws {
        let cache = try Fixtures.scratch().path
        let empty = try Fixtures.scratch().path
        XCTAssertThrowsError(try puller(cache: cache, own: empty).pull("shapes-tiny")) { error in
            XCTAssertEqual(error as? PullError, .notShipped(id: "shapes-tiny"))
            XCTAssertTrue("\(error)".contains("tools/install"), "\(error)")
        }
        XCTAssertTrue(ModelCache(root: cache).catalogLines().contains { $0.contains("shapes-tiny") && $0.contains("in lookd's repository") })
    }

    func testAFullDiskSaysSoAndLeavesNoModelThatLooksPresent() throws {
        // A 5 MB tmpfs as the cache: the 3.6 MB language model fits, the 5.9 MB mmproj does not. Needs root (as CI runs).
        let cache = try Fixtures.scratch().path
        guard (try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=5m", "tmpfs", cache])).status == 0 else {
            return XCTFail("this test mounts a small tmpfs, which needs root")
        }
        defer { _ = try? Subprocess.run("/bin/umount", [cache]) }
        XCTAssertThrowsError(try puller(cache: cache, own: shipped).pull("shapes-tiny")) { error in
            guard case .disk(let file, let reason)? = error as? PullError else { return XCTFail("\(error)") }
            XCTAssertTrue(file.hasSuffix("shapes-tiny-mmproj-F16.gguf"), file)
            XCTAssertFalse(reason.isEmpty)
        }
        let dir = ModelCache(root: cache).folder("shapes-tiny")
        XCTAssertFalse(FileManager.default.fileExists(atPath: (dir as NSString).appendingPathComponent("shapes-tiny-mmproj-F16.gguf")))
        XCTAssertNil(ModelCache(root: cache).present("shapes-tiny"))
    }
}

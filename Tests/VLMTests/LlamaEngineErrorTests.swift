import Foundation
import LookCore
import TestSupport
import VLM
import XCTest

/// Wrong or damaged files are refused with a sentence that says what is wrong.
final class LlamaEngineErrorTests: XCTestCase {
    private func loadError(model: String, mmproj: String) -> VLMError? {
        do {
            _ = try LlamaEngine(modelPath: model, mmprojPath: mmproj, clock: MonotonicClock())
            XCTFail("\(model) + \(mmproj) loaded")
            return nil
        } catch {
            return error
        }
    }

    func testAMissingFile() {
        let error = loadError(model: "/nonexistent/lm.gguf", mmproj: Fixtures.mmproj)
        XCTAssertEqual(error, .fileMissing(role: "language model", path: "/nonexistent/lm.gguf"))
        XCTAssertEqual(
            loadError(model: Fixtures.model, mmproj: "/nonexistent/mmproj.gguf"),
            .fileMissing(role: "mmproj", path: "/nonexistent/mmproj.gguf"))
    }

    func testNotAGGUF() throws {
        let dir = try Fixtures.scratch()
        let text = dir.appendingPathComponent("model.gguf").path
        try Data("{\"not\": \"a model\"}".utf8).write(to: URL(fileURLWithPath: text))
        let error = loadError(model: text, mmproj: Fixtures.mmproj)
        XCTAssertEqual(error, .notGGUF(role: "language model", path: text))
        XCTAssertTrue(error!.description.contains("is not a GGUF file"))
    }

    func testFilesGivenTheWrongWayRound() {
        guard case .wrongKind(let role, _, _)? = loadError(model: Fixtures.mmproj, mmproj: Fixtures.model) else {
            return XCTFail("swapped files were not recognised")
        }
        XCTAssertEqual(role, "language model")
        guard case .wrongKind(let role2, _, _)? = loadError(model: Fixtures.model, mmproj: Fixtures.model) else {
            return XCTFail("a language model given as the mmproj was not recognised")
        }
        XCTAssertEqual(role2, "mmproj")
    }

    func testATruncatedModel() throws {
        let dir = try Fixtures.scratch()
        let cut = dir.appendingPathComponent("cut.gguf")
        try Data(contentsOf: URL(fileURLWithPath: Fixtures.model)).prefix(100_000).write(to: cut)
        guard case .modelLoadFailed(let path, let reason)? = loadError(model: cut.path, mmproj: Fixtures.mmproj) else {
            return XCTFail("a truncated model loaded")
        }
        XCTAssertEqual(path, cut.path)
        XCTAssertTrue(reason.contains("corrupted or incomplete"), reason)
    }

    func testAnMmprojThatDoesNotFitTheModel() {
        let wide = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/tiny-minicpmv-wide-Q8_0.gguf").path
        guard case .projectorMismatch(let model, let mmproj, let reason)? = loadError(model: wide, mmproj: Fixtures.mmproj) else {
            return XCTFail("a mismatched pair loaded or failed otherwise")
        }
        XCTAssertEqual(model, wide)
        XCTAssertEqual(mmproj, Fixtures.mmproj)
        XCTAssertTrue(reason.contains("128") && reason.contains("64"), reason)
    }

    func testAProjectorTypeThisBuildCannotRun() throws {
        // The fixture mmproj with its projector type renamed (same length, so the file stays valid).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Fixtures.mmproj)))
        let from = Array("minicpmv4_6".utf8), to = Array("minicpmv4_9".utf8)
        let at = try XCTUnwrap((0...(bytes.count - from.count)).first { bytes[$0..<$0 + from.count].elementsEqual(from) })
        bytes.replaceSubrange(at..<at + from.count, with: to)
        let path = try Fixtures.scratch().appendingPathComponent("future-mmproj.gguf").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        guard case .projectorUnsupported(_, let type, let build)? = loadError(model: Fixtures.model, mmproj: path) else {
            return XCTFail("an unknown projector type was not reported as such")
        }
        XCTAssertEqual(type, "minicpmv4_9")
        XCTAssertTrue(build.contains("CPU"), build)
    }
}

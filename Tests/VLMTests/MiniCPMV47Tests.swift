import Capture
import Foundation
import LookCore
import TestSupport
import XCTest

@testable import VLM

/// MiniCPM-V 4.7 on the pinned llama.cpp with lookd's patch: the tiny random-weight 4.7 pair in
/// upstream's format, its logits after an image and a question compared with transformers' own
/// (tools/fixture_models_47.py made both), for a one-crop frame and a sliced photo; and plain
/// sequential positions shown not to match, so the comparison can fail.
final class MiniCPMV47Tests: XCTestCase {
    private struct Reference: Decodable {
        struct Case: Decodable {
            var picture: String, size: [Int], crops: [[Int]], layout: [Int32], logits: [Float], sequential_logits: [Float]
        }
        var question: String
        var cases: [String: Case]
    }

    /// Both sides run the same F32 weights on the same pixels (one colour, so the two resamplers
    /// agree); what differs is arithmetic: ggml's kernels and summation order against torch's,
    /// llama.cpp's chunked Gated DeltaNet against transformers' loop, float32 throughout. Measured
    /// (2026-11-29): at most 0.0016 on logits up to 11 in size, 1.5e-4 of the largest; the vision
    /// tower alone differs by at most 0.005 on outputs near 10. The tolerance is 1e-3 of the largest
    /// logit (0.011 here), about seven times what was measured; plain sequential positions miss by
    /// 0.58–0.66, fifty times the tolerance (asserted below: more than twenty).
    private func tolerance(_ reference: [Float]) -> Float { 1e-3 * (reference.map(abs).max() ?? 1) }

    private func maxDifference(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map { abs($0 - $1) }.max() ?? .infinity }

    private static let engine = Result { try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj47, clock: MonotonicClock()) }

    private func reference() throws -> Reference {
        try JSONDecoder().decode(Reference.self, from: Data(contentsOf: Fixtures.reference47))
    }

    func testTheUpstreamFormatLoadsWithCanvasPositions() throws {
        let engine = try Self.engine.get()
        XCTAssertNotNil(engine.canvas, "the mmproj's projector type asks for canvas positions")
        XCTAssertEqual(engine.pair.verdict, .canvas(.fromFile(key: "qwen35.rope.mrope_time_slot", value: "3")))
        let plain = try LlamaEngine(modelPath: Fixtures.model, mmprojPath: Fixtures.mmproj, clock: MonotonicClock())
        XCTAssertNil(plain.canvas, "a 4.6 model is fed as before")
        XCTAssertEqual(plain.pair.verdict, .native)
    }

    /// Every way converters publish the 4.7 pair loads and gives transformers' logits for both
    /// pictures: the key that names the time slot, none at all, a section order either way round,
    /// and an mmproj with an extra tensor.
    func testEachPublishedVariantGivesTransformersLogits() throws {
        let reference = try reference()
        let variants: [(String, String, String, ModelPair.Verdict)] = [
            ("time-slot key", Fixtures.model47, Fixtures.mmproj47, .canvas(.fromFile(key: "qwen35.rope.mrope_time_slot", value: "3"))),
            ("no key", Fixtures.variant47("nokey"), Fixtures.mmproj47, .canvas(.suppliedByLookd(reason: "the language model names no time slot"))),
            ("zyxt", Fixtures.variant47("zyxt"), Fixtures.mmproj47, .canvas(.fromFile(key: "qwen35.rope.section_order", value: "zyxt"))),
            (
                "tyxz", Fixtures.variant47("tyxz"), Fixtures.mmproj47,
                .canvas(.suppliedByLookd(reason: "qwen35.rope.section_order = tyxz puts the time in slot 0"))
            ),
            (
                "extra mmproj tensor", Fixtures.model47, Fixtures.variant47("mmproj-sep"),
                .canvas(.fromFile(key: "qwen35.rope.mrope_time_slot", value: "3"))
            ),
        ]
        for (name, model, mmproj, verdict) in variants {
            let engine = try LlamaEngine(modelPath: model, mmprojPath: mmproj, clock: MonotonicClock())
            XCTAssertEqual(engine.pair.verdict, verdict, name)
            for (picture, expected) in reference.cases.sorted(by: { $0.key < $1.key }) {
                let path = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(expected.picture)").path
                let result = try engine.promptLogits(image: try engine.encode(try PhotoDecoder.decode(path: path)), prompt: reference.question)
                XCTAssertEqual(result.layout, expected.layout, "\(name), \(picture): transformers' prompt, token for token")
                XCTAssertLessThanOrEqual(maxDifference(result.logits, expected.logits), tolerance(expected.logits), "\(name), \(picture)")
            }
        }
    }

    func testThePromptNumbersThePictureAndThinksNot() throws {
        let engine = try Self.engine.get()
        let layout = try reference().cases["frame"]!.layout
        let numbered = LlamaEngine.tokenize("<|im_start|>user\n<image_id>0</image_id><image>", vocab: engine.vocab)
        XCTAssertEqual(numbered.count, 7, "<image_id> and </image_id> are single tokens of the fixture's vocabulary")
        XCTAssertEqual(Array(layout.prefix(7)), numbered, "transformers' processor puts <image_id>0</image_id> before <image>")
        let thinkingOff = LlamaEngine.tokenize("<|im_start|>assistant\n<think>\n\n</think>\n\n", vocab: engine.vocab)
        XCTAssertEqual(Array(layout.suffix(thinkingOff.count)), thinkingOff, "the answer starts after an empty thinking block")
    }

    /// Without lookd's time slot, llama.cpp reads the time from slot 0 (the index): the logits miss.
    func testWithoutTheSuppliedTimeSlotThePositionsGoWrong() throws {
        var options = LlamaEngine.Options()
        options.suppliesTimeSlot = false
        let engine = try LlamaEngine(modelPath: Fixtures.variant47("nokey"), mmprojPath: Fixtures.mmproj47, options: options, clock: MonotonicClock())
        let expected = try reference().cases["frame"]!
        let path = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(expected.picture)").path
        let result = try engine.promptLogits(image: try engine.encode(try PhotoDecoder.decode(path: path)), prompt: try reference().question)
        XCTAssertGreaterThan(maxDifference(result.logits, expected.logits), 20 * tolerance(expected.logits))
    }

    func testPairsThatCannotRunAreRefusedWithTheKeyTheValueAndTheFile() {
        let bad = Fixtures.variant47("badorder")
        XCTAssertThrowsError(try LlamaEngine(modelPath: bad, mmprojPath: Fixtures.mmproj47, clock: MonotonicClock())) { error in
            let text = "\(error)"
            XCTAssertTrue(text.hasPrefix("lookd cannot run this model: "), text)
            XCTAssertTrue(text.contains("qwen35.rope.section_order = \"txyz\""), text)
            XCTAssertTrue(text.contains(bad), text)
        }
        // A 4.7 language model beside a 4.6 mmproj: fed plainly, its positions would be wrong.
        XCTAssertThrowsError(try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj, clock: MonotonicClock())) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("qwen35.rope.mrope_time_slot = 3"), text)
            XCTAssertTrue(text.contains("projector type is minicpmv4_6, not minicpmv4_7"), text)
        }
    }

    func testLogitsMatchTransformersForAFrameAndASlicedPhotoAndSequentialPositionsDoNot() throws {
        let engine = try Self.engine.get()
        let reference = try reference()
        XCTAssertEqual(Set(reference.cases.keys), ["frame", "photo"])
        for (name, expected) in reference.cases.sorted(by: { $0.key < $1.key }) {
            let path = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(expected.picture)").path
            let image = try engine.encode(try PhotoDecoder.decode(path: path))
            let canvas = try engine.promptLogits(image: image, prompt: reference.question)
            XCTAssertEqual(canvas.layout, expected.layout, "\(name): the same prompt, position for position (crops \(expected.crops))")
            XCTAssertEqual(canvas.logits.count, expected.logits.count)
            let tolerance = tolerance(expected.logits)
            let miss = maxDifference(canvas.logits, expected.logits)
            XCTAssertLessThanOrEqual(miss, tolerance, "\(name): canvas positions match transformers")

            let sequential = try engine.promptLogits(image: image, prompt: reference.question, sequential: true)
            XCTAssertLessThanOrEqual(
                maxDifference(sequential.logits, expected.sequential_logits), tolerance,
                "\(name): lookd's sequential mode is transformers' sequential mode")
            XCTAssertGreaterThan(
                maxDifference(sequential.logits, expected.logits), 20 * tolerance,
                "\(name): plain sequential positions do not match the canvas reference")
            print(
                "\(name): \(expected.layout.count) positions, crops \(expected.crops): canvas max |diff| \(miss), "
                    + "sequential \(maxDifference(sequential.logits, expected.logits)), tolerance \(tolerance)")
        }
        XCTAssertGreaterThan(reference.cases["photo"]!.crops.count, 1, "the photo is sliced")
        XCTAssertEqual(reference.cases["frame"]!.crops.count, 1, "the frame is one crop")
    }

    /// Every path of lookd's kernels this CPU can run (AVX-512, AVX2 with AVX-VNNI, AVX2 alone: the
    /// narrower ones forced) gives transformers' logits within the tolerance, the frame and the photo.
    func testLogitsMatchTransformersOnEveryKernelPath() throws {
        let engine = try Self.engine.get()
        let reference = try reference()
        try KernelPaths.each { path in
            for (name, expected) in reference.cases.sorted(by: { $0.key < $1.key }) {
                let picture = Fixtures.root.appendingPathComponent("Tests/Fixtures/models/\(expected.picture)").path
                let image = try engine.encode(try PhotoDecoder.decode(path: picture))
                let canvas = try engine.promptLogits(image: image, prompt: reference.question)
                let miss = maxDifference(canvas.logits, expected.logits)
                XCTAssertLessThanOrEqual(miss, tolerance(expected.logits), "\(name), \(path.name) kernels")
                print("\(name), \(path.name) kernels: max |diff| \(miss), tolerance \(tolerance(expected.logits))")
            }
        }
    }

    func testItAnswersEndToEnd() throws {
        let engine = try Self.engine.get()
        let generation = try engine.generate(image: RGBImage(width: 448, height: 252, fill: (40, 120, 200)), prompt: "What is this?", maxTokens: 6)
        XCTAssertEqual(generation.timings.outputTokens, 6)
        XCTAssertFalse(generation.text.isEmpty)
    }
}

import Foundation
import TestSupport
import XCTest

@testable import VLM

/// How lookd decides to run a pair, from headers alone: the cases no fixture file needs.
final class ModelPairTests: XCTestCase {
    private func header(_ values: [String: GGUFMetadata.Value]) -> GGUFMetadata {
        GGUFMetadata(version: 3, values: values, tensors: [], arrayCounts: [:])
    }
    private let mmproj47: [String: GGUFMetadata.Value] = ["general.architecture": .string("clip"), "clip.projector_type": .string("minicpmv4_7")]

    private func verdict(_ model: [String: GGUFMetadata.Value], mmproj: [String: GGUFMetadata.Value]? = nil, patched: Bool = true)
        -> ModelPair.Verdict
    {
        ModelPair(model: header(model), modelPath: "/m/lm.gguf", mmproj: header(mmproj ?? mmproj47), mmprojPath: "/m/mmproj.gguf", patched: patched)
            .verdict
    }

    func testTimeSlotsOtherThanZeroOrThreeAreRefused() {
        guard case .cannotRun(let why) = verdict(["general.architecture": .string("qwen35"), "qwen35.rope.mrope_time_slot": .uint(2)]) else {
            return XCTFail("slot 2 holds the width")
        }
        XCTAssertTrue(why.contains("/m/lm.gguf has qwen35.rope.mrope_time_slot = 2"), why)
        XCTAssertTrue(why.contains("width"), why)
        XCTAssertEqual(
            verdict(["general.architecture": .string("qwen35"), "qwen35.rope.mrope_time_slot": .uint(0)]),
            .canvas(.suppliedByLookd(reason: "qwen35.rope.mrope_time_slot = 0 names llama.cpp's default layout")))
    }

    func testAnyTimeSlotSpellingIsRead() {
        XCTAssertEqual(
            verdict(["general.architecture": .string("qwen35"), "qwen35.rope.time_slot": .int(3)]),
            .canvas(.fromFile(key: "qwen35.rope.time_slot", value: "3")))
    }

    func testOnlyQwen35LanguageModelsGetCanvasPositions() {
        guard case .cannotRun(let why) = verdict(["general.architecture": .string("qwen35moe")]) else { return XCTFail() }
        XCTAssertTrue(why.contains("general.architecture = qwen35moe"), why)
    }

    func testASystemLlamaCppRunsWhatItKnows() {
        XCTAssertEqual(verdict(["general.architecture": .string("qwen35")], patched: false), .native)
    }

    func testSectionOrdersAreReadAsTimeSlots() {
        XCTAssertEqual(ModelPair.timeSlot(sectionOrder: "zyxt"), 3)
        XCTAssertEqual(ModelPair.timeSlot(sectionOrder: "tyxz"), 0)
        XCTAssertNil(ModelPair.timeSlot(sectionOrder: "txyz"), "height and width swapped")
        XCTAssertNil(ModelPair.timeSlot(sectionOrder: "abcd"))
        guard case .cannotRun(let why) = verdict(["general.architecture": .string("qwen35"), "qwen35.rope.section_order": .int(5)]) else {
            return XCTFail()
        }
        XCTAssertTrue(why.contains("qwen35.rope.section_order = 5"), why)
    }
}

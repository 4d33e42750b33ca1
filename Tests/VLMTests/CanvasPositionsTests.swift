import Foundation
import TestSupport
import XCTest

@testable import VLM

/// lookd's canvas M-RoPE layout against transformers' own (Tests/VLMTests/canvas-golden.json, made by
/// tools/make-canvas-golden from MiniCPMV4_7Model.get_rope_index): every position of every case.
final class CanvasPositionsTests: XCTestCase {
    private let markers = CanvasPositions.Markers(imageStart: 10, imageEnd: 11, sliceStart: 12, sliceEnd: 13, newline: 14)

    private struct Case: Decodable {
        var name: String, mode: String, ids: [Int32], grids: [[Int]], t: [Int], h: [Int], w: [Int], delta: Int
    }

    private func cases() throws -> [Case] {
        struct File: Decodable { var cases: [Case] }
        let url = Fixtures.root.appendingPathComponent("Tests/VLMTests/canvas-golden.json")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }

    /// The prompt as items: picture tokens (id 100) in runs, one crop per run, with the crops' grids in order.
    private func items(_ c: Case) -> [CanvasPositions.Item] {
        var crop = -1
        var previousWasImage = false
        return c.ids.map { id in
            guard id == 100 else { previousWasImage = false; return .text(id) }
            if !previousWasImage { crop += 1 }
            previousWasImage = true
            return .image(crop: crop, grid: (c.grids[crop][0], c.grids[crop][1]))
        }
    }

    func testEveryPositionMatchesTransformers() throws {
        let all = try cases()
        XCTAssertEqual(all.count, 8)
        for c in all {
            let (positions, delta) = CanvasPositions.layout(items(c), markers: markers, mergeFactor: c.mode == "4x" ? 2 : 4)
            XCTAssertEqual(positions.map(\.t), c.t, c.name)
            XCTAssertEqual(positions.map(\.h), c.h, c.name)
            XCTAssertEqual(positions.map(\.w), c.w, c.name)
            XCTAssertEqual(delta, c.delta, c.name)
        }
    }

    func testTheIssuesLayoutsAndThatTheyAreNotSequential() {
        let single: [CanvasPositions.Item] =
            [.text(1), .text(10)] + Array(repeating: .image(crop: 0, grid: (8, 8)), count: 4) + [.text(11), .text(2)]
        let (p, delta) = CanvasPositions.layout(single, markers: markers)
        XCTAssertEqual(p.map(\.t), [0, 1, 1, 1, 1, 1, 1, 4])
        XCTAssertEqual(p.map(\.h), [0, 0, 1, 1, 2, 2, 3, 4])
        XCTAssertEqual(p.map(\.w), [0, 0, 1, 2, 1, 2, 3, 4])
        XCTAssertEqual(delta, -3)
        XCTAssertNotEqual(p.map(\.t), Array(0..<8), "a picture's positions are not the plain sequence")
    }

    func testTorchsLinspaceRounding() {
        // torch.linspace(0, 3, 3) = [0, 1.5, 3] → round half to even → [0, 2, 3]
        XCTAssertEqual(CanvasPositions.linspaceRounded(to: 3, count: 3), [0, 2, 3])
        XCTAssertEqual(CanvasPositions.linspaceRounded(to: 7, count: 8), Array(0...7))
        XCTAssertEqual(CanvasPositions.linspaceRounded(to: 15, count: 8), [0, 2, 4, 6, 9, 11, 13, 15])
    }
}

import Foundation
import LookCore
import TestSupport
import XCTest

@testable import VLM

/// A camera's vision tower reusing its last encode (issue 79) on the tiny MiniCPM-V 4.7 pair, whose
/// tower has the 4.7 shape (a ViT merger inside the layers, a final merger): the reusing graph is
/// exact when it recomputes every token, a still picture costs nothing, a changed corner costs its
/// tokens, and a cache never serves another engine or another size.
final class TowerReuseTests: XCTestCase {
    private static let engine = Result { try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj47, clock: MonotonicClock()) }

    /// A picture of coloured noise, with `box` (x, y, w, h) painted over in one colour.
    private func picture(_ w: Int, _ h: Int, box: (Int, Int, Int, Int)? = nil, seed: UInt64 = 7) -> RGBImage {
        var state = seed
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for i in pixels.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            pixels[i] = UInt8(truncatingIfNeeded: state >> 56)
        }
        if let (bx, by, bw, bh) = box {
            for y in by..<(by + bh) { for x in bx..<(bx + bw) { for c in 0..<3 { pixels[(y * w + x) * 3 + c] = c == 0 ? 250 : 10 } } }
        }
        return RGBImage(width: w, height: h, pixels: pixels)!
    }

    private func embeddings(_ encoded: EncodedImage) -> [Float] {
        (encoded.payload as! ImagePieces).pieces.flatMap { piece -> [Float] in
            if case .image(_, let values) = piece { return values }
            return []
        }
    }

    private func largest(_ a: [Float], _ b: [Float]) -> Float { zip(a, b).map { abs($0 - $1) }.max() ?? .infinity }

    func testRecomputingEveryTokenThroughTheReusingGraphGivesTheWholeEncode() throws {
        let engine = try Self.engine.get()
        // A threshold below zero moves every patch: the second encode takes the reusing graph with all tokens.
        let cache = try XCTUnwrap(engine.makeTowerCache(TowerReuse(threshold: -1, bound: 1, refresh: 100)))
        let first = picture(448, 252), second = picture(448, 252, seed: 99)
        _ = try engine.encode(first, cache: cache)
        let reused = try engine.encode(second, cache: cache)
        let figures = try XCTUnwrap(reused.reuse)
        XCTAssertTrue(figures.reused)
        XCTAssertEqual(figures.computed, figures.tokens)
        let whole = embeddings(try engine.encode(second))
        let got = embeddings(reused)
        XCTAssertEqual(got.count, whole.count)
        let scale = whole.map(abs).max() ?? 1
        XCTAssertLessThan(largest(got, whole), 2e-3 * scale, "the reusing graph computes what the whole one does")
        print("reuse: all tokens through the reusing graph: largest difference \(largest(got, whole)) of \(scale)")
        XCTAssertGreaterThan(largest(embeddings(try engine.encode(first)), whole), 0.1 * scale, "the two pictures differ")
    }

    func testAStillPictureCostsNothingAndAChangedCornerCostsItsTokens() throws {
        let engine = try Self.engine.get()
        let cache = try XCTUnwrap(engine.makeTowerCache(TowerReuse(threshold: 0.04, bound: 0.5, refresh: 100)))
        let still = picture(448, 252)
        let first = try engine.encode(still, cache: cache)
        XCTAssertEqual(first.reuse?.reused, false, "the first encode is whole")
        let again = try engine.encode(still, cache: cache)
        XCTAssertEqual(again.reuse?.computed, 0, "nothing moved: nothing computed")
        XCTAssertEqual(embeddings(again), embeddings(first))
        let corner = picture(448, 252, box: (0, 0, 60, 60))
        let moved = try engine.encode(corner, cache: cache)
        let figures = try XCTUnwrap(moved.reuse)
        XCTAssertTrue(figures.reused)
        XCTAssertGreaterThan(figures.computed, 0)
        XCTAssertLessThan(figures.computed, figures.tokens / 4, "only the corner's tokens: \(figures)")
        XCTAssertNotEqual(embeddings(moved), embeddings(first), "the corner shows")
        XCTAssertGreaterThan(figures.keptBytes, 0)
    }

    func testACacheNeverServesAnotherEngineOrAnotherSize() throws {
        let engine = try Self.engine.get()
        let other = try LlamaEngine(modelPath: Fixtures.model47, mmprojPath: Fixtures.mmproj47, clock: MonotonicClock())
        let cache = try XCTUnwrap(engine.makeTowerCache(TowerReuse(threshold: 0.04, bound: 0.5, refresh: 100)))
        let still = picture(448, 252)
        _ = try engine.encode(still, cache: cache)
        let elsewhere = try other.encode(still, cache: cache)
        XCTAssertNil(elsewhere.reuse, "another engine encodes whole, without the cache")
        // Another size: whole, though the kept results are there.
        let wider = try engine.encode(picture(504, 252), cache: cache)
        XCTAssertEqual(wider.reuse?.reused, false)
        XCTAssertEqual(embeddings(wider), embeddings(try engine.encode(picture(504, 252))))
        // Dropped: the next encode is whole.
        cache.drop()
        XCTAssertEqual(try engine.encode(still, cache: cache).reuse?.reused, false)
    }

    /// Two cameras on one engine, each with its own cache, taking turns: each camera's still picture
    /// reuses its own kept results, never the other camera's.
    func testEachCameraReusesOnlyItsOwnPictures() throws {
        let engine = try Self.engine.get()
        let (door, yard) = (try XCTUnwrap(engine.makeTowerCache(TowerReuse())), try XCTUnwrap(engine.makeTowerCache(TowerReuse())))
        let (porch, drive) = (picture(448, 252, seed: 1), picture(448, 252, seed: 2))
        let doorFirst = try engine.encode(porch, cache: door)
        let yardFirst = try engine.encode(drive, cache: yard)
        for _ in 0..<2 {
            let doorAgain = try engine.encode(porch, cache: door)
            let yardAgain = try engine.encode(drive, cache: yard)
            XCTAssertEqual(doorAgain.reuse?.computed, 0)
            XCTAssertEqual(yardAgain.reuse?.computed, 0)
            XCTAssertEqual(embeddings(doorAgain), embeddings(doorFirst), "the door's picture is the door's")
            XCTAssertEqual(embeddings(yardAgain), embeddings(yardFirst), "the yard's picture is the yard's")
        }
        XCTAssertNotEqual(embeddings(doorFirst), embeddings(yardFirst))
    }

    /// A camera's tower: made for its settings, made again when they change, and dropped when the
    /// source comes back after a loss (its next opening) or the camera is paused.
    func testACamerasTowerStartsAfreshAfterALossAndASettingsChange() throws {
        let engine = try Self.engine.get()
        let tower = CameraTower(model: engine)
        let still = picture(448, 252)
        _ = try engine.encode(still, cache: tower.cache(TowerReuse(), opening: 1))
        XCTAssertEqual(try engine.encode(still, cache: tower.cache(TowerReuse(), opening: 1)).reuse?.computed, 0)
        XCTAssertEqual(try engine.encode(still, cache: tower.cache(TowerReuse(), opening: 2)).reuse?.reused, false, "a return: whole")
        XCTAssertEqual(try engine.encode(still, cache: tower.cache(TowerReuse(), opening: 2)).reuse?.computed, 0)
        XCTAssertEqual(try engine.encode(still, cache: tower.cache(TowerReuse(refresh: 3), opening: 2)).reuse?.reused, false, "new settings: whole")
        tower.drop()
        XCTAssertEqual(try engine.encode(still, cache: tower.cache(TowerReuse(refresh: 3), opening: 2)).reuse?.reused, false, "paused: whole")
        XCTAssertNil(tower.cache(nil, opening: 2), "--reuse off keeps nothing")
    }
}

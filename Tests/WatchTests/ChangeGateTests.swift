import Capture
import Config
import Foundation
import Gate
import LookCore
import Records
import Rules
import Settings
import TestSupport
import VLM
import XCTest

@testable import Watch

/// The change gate in the loop, in-process: pictures made here, the scripted model, a manual clock.
final class ChangeGateTests: XCTestCase {
    private let width = 448, height = 252 // the size of the frames the model gets

    /// A grey scene with sensor-like noise (±`noise` grey levels per pixel), and a red square at
    /// `object` (fractions of the picture) when given.
    private func scene(noise: Int = 0, object: (x: Double, y: Double)? = nil, corner: UInt8? = nil, seed: UInt64 = 1) -> RGBImage {
        var rng = SplitMix(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 3
                let n = noise > 0 ? Int(rng.next() % UInt64(2 * noise + 1)) - noise : 0
                var (r, g, b) = (120 + n, 120 + n, 120 + n)
                if let object, abs(Double(x) / Double(width) - object.x) < 0.12, abs(Double(y) / Double(height) - object.y) < 0.2 {
                    (r, g, b) = (220, 30, 30)
                }
                if let corner, x >= width * 85 / 100, y < height * 12 / 100 { (r, g, b) = (Int(corner), Int(corner), Int(corner)) }
                (pixels[i], pixels[i + 1], pixels[i + 2]) = (UInt8(clamping: r), UInt8(clamping: g), UInt8(clamping: b))
            }
        }
        return RGBImage(width: width, height: height, pixels: pixels)!
    }

    private func run(
        _ images: [RGBImage], answers: [String] = ["1. No"], step: Double = 0.5, settings: (inout ChangeGate.Settings) -> Void = { _ in },
        rules: String = "a red square=count", onFrame: ((WatchLoop, SeenFrame) -> Void)? = nil
    ) throws -> (outcomes: [FrameOutcome], model: ScriptedModel, loop: WatchLoop, reactions: RecordingReactions) {
        let dir = try Fixtures.scratch()
        let clock = ManualClock()
        var config = WatchConfig(source: "-", rules: rules)
        config.recordDir = dir.path
        config.gate.enabled = true
        settings(&config.gate)
        let set = try config.loadRules().0
        let model = try ScriptedModel(path: try Fixtures.script(answers, in: dir), clock: MonotonicClock())
        let reactions = RecordingReactions()
        let events = try TestEvents(log: dir.appendingPathComponent("events.jsonl").path, record: RunRecord(epoch: 1, rules: set.rules))
        let loop = WatchLoop(
            source: ScriptedSource(images: images, clock: clock, step: step), model: model, rules: set.rules, config: config,
            events: events, epoch: 1, reactor: reactions, clock: clock)
        var outcomes: [FrameOutcome] = []
        events.onFrame = { frame in
            outcomes.append(frame.outcome)
            onFrame?(loop, frame)
        }
        XCTAssertEqual(try loop.run(), "end of source")
        return (outcomes, model, loop, reactions)
    }

    func testSkippedFramesLeaveTheRulesUntouchedAndAChangeIsAsked() throws {
        let still = scene()
        let images = [still, still, still, scene(object: (0.5, 0.5)), scene(object: (0.5, 0.5)), still]
        let r = try run(images, answers: ["1. No", "1. Yes", "1. No"])
        XCTAssertEqual(r.outcomes.map(\.asked), ["first", "changed", "changed"])
        XCTAssertEqual(r.outcomes.map(\.skipped), [0, 2, 1])
        XCTAssertEqual(r.model.questions, 3, "skipped frames cost no model call")
        XCTAssertEqual(r.reactions.performed.map(\.condition), ["a red square"], "the yes fired once; skipped frames stepped nothing")
        XCTAssertEqual(r.loop.gateCounts.offered, 6)
        XCTAssertEqual(r.loop.gateCounts.skipped, 3)
        XCTAssertGreaterThan(r.outcomes[1].change ?? 0, 0.05)
    }

    func testGateMaxForcesAnAnswerOnAStillScene() throws {
        // 10 still frames 0.5 s apart... and --gate-max 2: asked at 0 s and again once 2 s have passed.
        let r = try run(Array(repeating: scene(), count: 10), settings: { $0.maxSeconds = 2 })
        XCTAssertEqual(r.outcomes.map(\.asked), ["first", "max", "max"])
    }

    func testAReloadForcesAnAnswer() throws {
        let still = scene()
        let r = try run(
            Array(repeating: still, count: 6),
            onFrame: { loop, frame in
                if frame.index == 1 { loop.reloads.ask() }
            })
        XCTAssertEqual(r.outcomes.map(\.asked), ["first", "reload"])
    }

    func testAMaskHidesAChangingRegion() throws {
        // A clock in the top right corner changes on every frame.
        let images = (0..<6).map { scene(corner: UInt8($0 % 2 == 0 ? 250 : 10)) }
        let masked = try run(images, settings: { $0.masks = [GateMask(left: 0.8, top: 0, right: 1, bottom: 0.15)] })
        XCTAssertEqual(masked.outcomes.map(\.asked), ["first"])
        let unmasked = try run(images)
        XCTAssertEqual(unmasked.outcomes.map(\.asked), ["first", "changed", "changed", "changed", "changed", "changed"])
    }

    func testACamerasNoiseAndASlowDriftDoNotTripIt() throws {
        // Noise of ±25 grey levels per pixel, fresh on every frame; then the whole picture 30 levels brighter.
        var images = (0..<8).map { scene(noise: 25, seed: UInt64($0 + 1)) }
        images += (0..<4).map { i in
            var brighter = scene(noise: 25, seed: UInt64(100 + i))
            brighter = RGBImage(width: width, height: height, pixels: brighter.pixels.map { UInt8(min(255, Int($0) + 30)) })!
            return brighter
        }
        let r = try run(images)
        XCTAssertEqual(r.outcomes.map(\.asked), ["first"])
        XCTAssertEqual(r.loop.gateCounts.skipped, 11)
    }

    func testThePaceOfAFramesRunAndPhotosLeaveTheGateOff() {
        var config = WatchConfig(source: "clip.mp4", rules: "a=log")
        let video = SourceInfo(kind: "video", name: "clip.mp4", width: 640, height: 360, pace: "realtime")
        XCTAssertTrue(config.gateEnabled(for: video))
        XCTAssertTrue(config.gateEnabled(for: SourceInfo(kind: "camera", name: "/dev/video0", width: 640, height: 480, pace: "live")))
        XCTAssertFalse(config.gateEnabled(for: SourceInfo(kind: "photos", name: "dir", width: 640, height: 480, pace: "hold")))
        config.sourceOptions.pace = .frames(every: 1)
        XCTAssertFalse(config.gateEnabled(for: video), "--pace frames runs stay comparable frame for frame")
        config.gateMode = true
        XCTAssertTrue(config.gateEnabled(for: video), "--gate on turns it on")
    }
}

/// A small seeded generator, so the noise is the same on every run.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

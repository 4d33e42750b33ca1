import Capture
import Config
import Foundation
import LookCore
import Media
import Records
import Rules
import Settings
import TestSupport
import VLM
import XCTest

@testable import Watch

/// A snapshot of every fire: the fired frame as JPEG at the source's size, kept by count or age.
final class SnapshotTests: XCTestCase {
    private func difference(_ a: RGBImage, _ b: RGBImage) -> Double {
        zip(a.pixels, b.pixels).reduce(0) { $0 + abs(Double($1.0) - Double($1.1)) } / Double(a.pixels.count)
    }

    func testEachFireKeepsItsFrameAtTheSourcesSizeAndTheOldestGo() throws {
        let dir = try Fixtures.scratch()
        let clip = dir.appendingPathComponent("clip.mp4").path
        try TestMedia.clip(clip, seconds: 3, fps: 10, width: 960, height: 540)
        // Yes and no in turn with no cooldown: a fire every other frame (frames 1, 3, 5).
        let script = try Fixtures.script(["1. Yes", "1. No", "1. Yes", "1. No", "1. Yes", "1. No"], in: dir)
        let clock = ManualClock()
        var config = WatchConfig(source: clip, rules: "a test card=count")
        config.recordDir = dir.path
        config.cooldown = 0
        config.snapshotsDir = dir.appendingPathComponent("snapshots").path
        config.keepSnapshots = "2"
        config.sourceOptions.pace = .frames(every: 0.5)
        try FileManager.default.createDirectory(atPath: config.snapshotsDir!, withIntermediateDirectories: true)
        let set = try config.loadRules().0
        let source = try VideoFileSource(path: clip, pace: .frames(every: 0.5), maxSide: 448, clock: clock)
        let events = try TestEvents(record: RunRecord(epoch: 42, rules: set.rules))
        let loop = WatchLoop(
            source: source, model: try ScriptedModel(path: script, clock: MonotonicClock()), rules: set.rules, config: config, events: events,
            epoch: 42,
            reactor: RecordingReactions(), clock: clock)
        var shown: [Int: RGBImage] = [:]
        var fires: [FireOutcome] = []
        events.onFrame = { frame in
            fires += frame.fires
            if !frame.fires.isEmpty { shown[frame.index] = source.original() }
        }
        XCTAssertEqual(try loop.run(), "end of source")
        XCTAssertEqual(fires.count, 3)
        let paths = fires.compactMap(\.snapshot)
        XCTAssertEqual(paths.map { ($0 as NSString).lastPathComponent }, ["fire-42-00001.jpg", "fire-42-00002.jpg", "fire-42-00003.jpg"])
        let kept = try FileManager.default.contentsOfDirectory(atPath: config.snapshotsDir!).sorted()
        XCTAssertEqual(kept, ["fire-42-00002.jpg", "fire-42-00003.jpg"], "--keep-snapshots 2 removes the oldest")

        // The JPEG is the fired frame at the video's size: close to that frame, far from another.
        let last = try PhotoDecoder.decode(path: paths[2])
        XCTAssertEqual(last.width, 960)
        XCTAssertEqual(last.height, 540)
        let fired = try XCTUnwrap(shown[fires[2].frame])
        let other = try XCTUnwrap(shown[fires[0].frame])
        XCTAssertLessThan(difference(last, fired), 4, "JPEG of the fired frame")
        XCTAssertGreaterThan(difference(last, other), difference(last, fired) * 2, "not another frame")
    }

    func testRetentionByAgeAndItsSpelling() throws {
        XCTAssertEqual(Snapshots.Retention.parse("500"), .count(500))
        XCTAssertEqual(Snapshots.Retention.parse("12h"), .age(43_200))
        XCTAssertEqual(Snapshots.Retention.parse("7d"), .age(604_800))
        XCTAssertNil(Snapshots.Retention.parse("soon"))
        XCTAssertNil(Snapshots.Retention.parse("0"))
        // An age too short to keep the snapshot just taken, or past any calendar, is refused.
        for bad in ["1e-300d", "0.5m", "30s", "1e300d", "nand", "-1h"] { XCTAssertNil(Snapshots.Retention.parse(bad), bad) }
        XCTAssertEqual(Snapshots.Retention.parse("1m"), .age(60))
        let dir = try Fixtures.scratch().path
        let snapshots = Snapshots(dir: dir, keep: .age(3600))
        for (name, age) in [("fire-1-00001.jpg", 7200.0), ("fire-1-00002.jpg", 60.0), ("notes.txt", 9000.0)] {
            let path = (dir as NSString).appendingPathComponent(name)
            try Data("x".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path)
        }
        snapshots.prune(now: Date())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir).sorted(), ["fire-1-00002.jpg", "notes.txt"])
    }
}

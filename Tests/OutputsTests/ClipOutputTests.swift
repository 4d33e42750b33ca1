import Foundation
import LookCore
import Media
import Outputs
import ReactionDomain
import Records
import Rules
import TestSupport
import XCTest

/// The clip output's faults: a source that kept no keyframe yet, and a disk that fills while a
/// clip is written. Each is a `clip` event with its error and no path, and no half file is left;
/// the fire is not touched.
final class ClipOutputTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    private func frame(_ index: Int, at time: Double) -> FrameOutcome {
        FrameOutcome(
            index: index, captureT: time, sourceT: time, label: nil, size: (448, 252), age: 0, grab: 0, decode: nil, scale: nil, prompt: 0,
            model: 0.1, timings: GenerationTimings(firstToken: 0.1, total: 0.1, imageEncode: 0, inputTokens: 1, outputTokens: 1),
            raw: "1. Yes", answers: [.yes], parse: 0, done: 0.1, fired: [0], suppressed: [], places: [:], numbers: "", place: "",
            truth: nil, png: nil)
    }

    /// Fires rule 0 on frame 1 at `time` of the source and stops: the clip outcome.
    private func fire(into folder: String, feed: ClipFeed, at time: Double) throws -> ClipOutcome? {
        let rule = try InlineRules.parse("a cat=log").rules[0]
        let output = ClipOutput(
            ClipPlan(folder: folder, preRoll: 1, postRoll: 1, keep: (86400, 1 << 30), feedSeconds: 10, feedBudget: 1 << 20), feed: feed,
            clock: MonotonicClock())
        let events = try TestEvents(record: RunRecord(epoch: 1, rules: [rule]))
        try output.start(events: events)
        output.receive(.answered(frame(1, at: time)))
        let fired = FireOutcome(
            number: 1, rule: 0, condition: "a cat", reaction: rule.reaction, frame: 1, latency: 0, sinceChange: nil,
            result: ReactionResult(performed: true, shown: "log"), place: nil, holdSetting: 0)
        output.receive(.fired(fired, rule: rule, count: nil))
        output.receive(.stopping(reason: "test", WatchSnapshot(rows: [], rulesSource: "inline", frame: 1, fires: 1)))
        output.stop()
        return events.all.compactMap { if case .clip(let clip) = $0 { clip } else { nil } }.first
    }

    func testAStreamWithNoKeyframeKeptYetGivesAFireWithoutAClip() throws {
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 2, fps: 10)
        let feed = ClipFeed(keep: 6, budget: 1 << 20)
        feed.begin(try MediaFile(path: video).clipStream())
        // Joined mid-stream: pictures that need a keyframe before them.
        for i in 0..<20 { feed.add(ClipPacket(data: [0, 0, 1, 0x41], pts: Double(i) / 10, key: false)) }
        let clip = try XCTUnwrap(try fire(into: dir.appendingPathComponent("clips").path, feed: feed, at: 1))
        XCTAssertNil(clip.path)
        XCTAssertEqual(clip.fire, 1)
        XCTAssertTrue(clip.error?.contains("no keyframe") == true, clip.error ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("clips").path), [])
    }

    func testAFullDiskGivesAFireWithoutAClipAndNoHalfFile() throws {
        // The clips' folder on a 64 KB tmpfs; the clip is larger. Needs root (as CI runs).
        let small = dir.appendingPathComponent("small").path
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: true)
        guard (try Subprocess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", small])).status == 0 else {
            return XCTFail("this test mounts a small tmpfs, which needs root")
        }
        defer { _ = try? Subprocess.run("/bin/umount", [small]) }
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 6, fps: 30, width: 640, height: 480)
        let feed = ClipFeed(keep: 6, budget: 64 << 20)
        feed.useFile(video)
        let folder = (small as NSString).appendingPathComponent("clips")
        let clip = try XCTUnwrap(try fire(into: folder, feed: feed, at: 3))
        XCTAssertNil(clip.path)
        XCTAssertTrue(clip.error?.lowercased().contains("no space left on device") == true, clip.error ?? "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "no half clip, no .part")
    }

    func testFiresThatNeverPauseGetClipsNoLongerThanTheFeedKeeps() throws {
        // A fire every 1.5 s from 2 s to 14 s: each overlaps the clip before it (1 s before, 1 s
        // after), so one clip would grow to 1–15 s; the feed keeps 6 s, so none may pass that.
        let video = dir.appendingPathComponent("in.mp4").path
        try TestMedia.clip(video, seconds: 20, fps: 10)
        let feed = ClipFeed(keep: 6, budget: 64 << 20)
        feed.useFile(video)
        let rule = try InlineRules.parse("a cat=log").rules[0]
        let output = ClipOutput(
            ClipPlan(
                folder: dir.appendingPathComponent("clips").path, preRoll: 1, postRoll: 1, keep: (86400, 1 << 30), feedSeconds: 10,
                feedBudget: 1 << 20),
            feed: feed, clock: MonotonicClock())
        let events = try TestEvents(record: RunRecord(epoch: 1, rules: [rule]))
        try output.start(events: events)
        let times = stride(from: 2.0, through: 14, by: 1.5).map { $0 }
        for (i, time) in times.enumerated() {
            output.receive(.answered(frame(i + 1, at: time)))
            let fired = FireOutcome(
                number: i + 1, rule: 0, condition: "a cat", reaction: rule.reaction, frame: i + 1, latency: 0, sinceChange: nil,
                result: ReactionResult(performed: true, shown: "log"), place: nil, holdSetting: 0)
            output.receive(.fired(fired, rule: rule, count: nil))
        }
        output.receive(.stopping(reason: "test", WatchSnapshot(rows: [], rulesSource: "inline", frame: times.count, fires: times.count)))
        output.stop()
        let clips = events.all.compactMap { if case .clip(let clip) = $0 { clip } else { nil } }
        XCTAssertEqual(clips.map(\.fire), Array(1...times.count), "every fire has its clip event")
        let paths = Set(clips.compactMap(\.path))
        XCTAssertGreaterThan(paths.count, 1, "not one clip for all \(times.count) fires")
        XCTAssertEqual(clips.filter { $0.path == nil }.map(\.error), [], "every fire has a clip")
        for clip in clips {
            // A file's clip is cut on keyframes (the test clip's are a second apart): one second of slack.
            XCTAssertLessThanOrEqual(clip.duration, 6 + 1, "fire \(clip.fire): \(clip.start)–\(clip.start + clip.duration) s")
            XCTAssertGreaterThan(clip.duration, 1.5, "fire \(clip.fire)")
        }
    }
}

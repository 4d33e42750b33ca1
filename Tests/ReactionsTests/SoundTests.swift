import Foundation
import LookCore
import Media
import ReactionDomain
import TestFixtures
import TestSupport
import XCTest

@testable import Reactions

/// Sounds and speech through a real PulseAudio server (a null sink) whose monitor the test records.
final class SoundTests: XCTestCase {
    private var server: PulseServer!
    private var dir: URL!

    override func setUpWithError() throws {
        server = try PulseServer()
        dir = try Fixtures.scratch()
    }

    override func tearDown() {
        server.stop()
        server = nil
    }

    private var library: SoundLibrary { SoundLibrary(ownFolder: Fixtures.root.appendingPathComponent("Sounds").path) }

    func testAClipPlaysThroughTheServerForItsLength() throws {
        let recording = try server.record(to: dir.appendingPathComponent("bells.wav").path)
        let (clip, origin) = library.clip("bells")
        XCTAssertEqual(origin, .lookd)
        XCTAssertEqual(clip.duration, 3.0, accuracy: 0.05)
        let played = SoundOutput(server: server.address, clock: MonotonicClock()).playAndWait(clip, name: "bells")
        XCTAssertNil(played.error)
        XCTAssertLessThan(try XCTUnwrap(played.started), 0.5)
        // From the first write until the server drained the stream: the clip and the sink's latency
        // (a null sink drains in blocks of up to 2 s). The recording below measures the sound itself.
        let lasted = try XCTUnwrap(played.lasted)
        XCTAssertGreaterThanOrEqual(lasted, 2.9)
        XCTAssertLessThan(lasted, 5.5)
        let audio = try recording.stop()
        let span = try XCTUnwrap(audio.soundSpan(), "the sink heard nothing")
        XCTAssertEqual(span.length, 3.0, accuracy: 0.35)
    }

    func testClipsOverlapAndMix() throws {
        let recording = try server.record(to: dir.appendingPathComponent("mix.wav").path)
        let output = SoundOutput(server: server.address, clock: MonotonicClock())
        let done = expectation(description: "both played")
        done.expectedFulfillmentCount = 2
        let started = Date()
        XCTAssertNil(
            output.play(library.clip("water").clip, name: "water") { p in
                XCTAssertNil(p.error); done.fulfill()
            })
        XCTAssertNil(
            output.play(library.clip("horn").clip, name: "horn") { p in
                XCTAssertNil(p.error); done.fulfill()
            })
        XCTAssertLessThan(Date().timeIntervalSince(started), 0.5, "play does not wait for the sound")
        wait(for: [done], timeout: 15)
        XCTAssertLessThan(Date().timeIntervalSince(started), 4.0, "together, not one after the other (2 × 2.3 s)")
        let span = try XCTUnwrap(try recording.stop().soundSpan())
        XCTAssertEqual(span.length, 2.3, accuracy: 0.4)
    }

    func testASpokenLineIsHeardAsSpeech() throws {
        let speech = try Speech.shared()
        let clip = try speech.synthesize("There is the lighthouse")
        XCTAssertGreaterThan(clip.duration, 0.8)
        XCTAssertLessThan(clip.duration, 4)
        let recording = try server.record(to: dir.appendingPathComponent("say.wav").path)
        XCTAssertNil(SoundOutput(server: server.address, clock: MonotonicClock()).playAndWait(clip, name: "say").error)
        let audio = try recording.stop()
        let span = try XCTUnwrap(audio.soundSpan())
        XCTAssertEqual(span.length, clip.duration, accuracy: 0.35)
        let chime = try server.record(to: dir.appendingPathComponent("tone.wav").path)
        _ = SoundOutput(server: server.address, clock: MonotonicClock()).playAndWait(
            AudioClip(samples: (0..<48_000).map { Int16(8000 * sin(Double($0) * 0.06)) }, rate: 48_000), name: "tone")
        let tone = try chime.stop()
        XCTAssertGreaterThan(audio.levelVariation(), 2 * tone.levelVariation(), "speech rises and falls; a steady tone does not")
    }

    func testNoServerFailsAtOnceWithASentenceAndTheNextPlayTriesAgain() throws {
        server.stop()
        let output = SoundOutput(server: server.address, clock: MonotonicClock())
        let clip = library.clip("chime").clip
        let failure = try XCTUnwrap(output.play(clip, name: "chime"))
        XCTAssertTrue(failure.hasPrefix("no sound server"), failure)
        try server.start()
        XCTAssertNil(output.playAndWait(clip, name: "chime").error, "back again")
    }

    func testAServerThatGoesAwayMidSoundReportsIt() throws {
        let output = SoundOutput(server: server.address, clock: MonotonicClock())
        let done = expectation(description: "reported")
        let box = Box()
        XCTAssertNil(
            output.play(library.clip("bells").clip, name: "bells") { p in
                box.error = p.error; done.fulfill()
            })
        usleep(400_000)
        server.stop()
        wait(for: [done], timeout: 10)
        XCTAssertNotNil(box.error)
    }

    func testMissingSoundFilesPlayTheChimeAsAFallback() {
        let bare = SoundLibrary(themeFolder: dir.path, ownFolder: dir.path)
        XCTAssertEqual(bare.clip("water").origin, .fallback)
        XCTAssertEqual(bare.clip("chime").origin, .fallback)
        XCTAssertGreaterThan(bare.clip("water").clip.duration, 0.2)
        XCTAssertEqual(library.clip("chime").origin, .theme, "the freedesktop theme is installed by tools/setup")
        XCTAssertEqual(Set(library.soundsInBuild), ["chime", "glass", "bell", "water", "horn", "bells"])
    }

    func testTimersEndAndRestartOnTheirClock() {
        let clock = ManualClock()
        let timers = Timers(clock: clock)
        let ended = CollectedLines()
        timers.onEnd = { condition, minutes in ended.add("\(condition) \(minutes)") }
        XCTAssertFalse(timers.start("a kettle", minutes: 1))
        clock.advance(30)
        XCTAssertEqual(timers.remaining("a kettle"), 30)
        XCTAssertTrue(timers.start("a kettle", minutes: 2), "a second fire restarts it")
        clock.advance(60)
        XCTAssertEqual(timers.remaining("a kettle"), 60)
        XCTAssertEqual(ended.all, [], "the first countdown's end passed: restarted, it did not end")
        clock.advance(60)
        XCTAssertEqual(ended.all, ["a kettle 2.0"])
        XCTAssertNil(timers.remaining("a kettle"))
        XCTAssertFalse(timers.start("a kettle", minutes: 1), "ended, it starts anew")
        timers.keep(only: [])
        clock.advance(120)
        XCTAssertEqual(ended.all, ["a kettle 2.0"], "a countdown a reload dropped never ends")
        XCTAssertEqual(Timers.clock(240), "4:00")
        XCTAssertEqual(Timers.clock(58.2), "0:59")
    }

    func testTheReactorsTimerEndsWithTheChimeAndTimesUp() throws {
        setenv("PULSE_SERVER", server.address, 1)
        defer { unsetenv("PULSE_SERVER") }
        let recording = try server.record(to: dir.appendingPathComponent("timer.wav").path)
        let reactor = Reactor(audio: Audio(library: library, output: SoundOutput(clock: MonotonicClock())), clock: MonotonicClock())
        let ended = expectation(description: "timer ended")
        let box = Box()
        reactor.onReport = { report in
            if case .timer(let timer) = report { box.timer = timer; ended.fulfill() }
        }
        let result = reactor.perform(.timer(minutes: 0.01), condition: "a kettle", fire: 1, at: Date())
        XCTAssertEqual(result.shown, "0:01")
        wait(for: [ended], timeout: 15)
        XCTAssertEqual(box.timer?.condition, "a kettle")
        XCTAssertEqual(box.timer?.chimeError, .some(nil), "the chime played, without an error")
        let span = try XCTUnwrap(try recording.stop().soundSpan())
        XCTAssertGreaterThan(span.length, 1.0, "the chime, then the spoken line")
    }

    private final class Box: @unchecked Sendable {
        var error: String?
        var timer: ReactionReport.TimerEnded?
    }
}

import Capture
import Foundation
import LookCore
import TestSupport
import XCTest

final class VideoSourceTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }

    func testFramesPaceStepsThroughVideoTime() throws {
        let path = dir.appendingPathComponent("clip.mp4").path
        try TestMedia.clip(path, seconds: 3, fps: 30, width: 640, height: 360)
        let source = try VideoFileSource(path: path, pace: .frames(every: 0.5), maxSide: 320, clock: MonotonicClock())
        XCTAssertEqual(source.info.width, 640)
        XCTAssertEqual(source.info.fps ?? 0, 30, accuracy: 0.01)
        XCTAssertEqual(source.info.duration ?? 0, 3, accuracy: 0.1)
        var times: [Double] = []
        while let frame = try source.next() {
            XCTAssertEqual([frame.image.width, frame.image.height], [320, 180])
            XCTAssertEqual(frame.sourceSize.width, 640)
            times.append(try XCTUnwrap(frame.sourceTime))
        }
        XCTAssertEqual(times.count, 6)
        for (i, t) in times.enumerated() { XCTAssertEqual(t, Double(i) * 0.5, accuracy: 0.02) }
        XCTAssertNil(try source.next(), "an ended video stays ended")
    }

    func testRealtimeTakesTheFrameDueNowAndPausesWithoutRewinding() throws {
        let path = dir.appendingPathComponent("clip.mp4").path
        try TestMedia.clip(path, seconds: 4, fps: 10)
        let clock = ManualClock()
        let source = try VideoFileSource(path: path, pace: .realtime, clock: clock)
        XCTAssertEqual(try source.next()?.sourceTime ?? -1, 0, accuracy: 0.001)
        clock.advance(1.26) // the model took 1.26 s
        let second = try XCTUnwrap(try source.next())
        XCTAssertEqual(second.sourceTime ?? -1, 1.2, accuracy: 0.001, "the newest frame due at 1.26 s")
        XCTAssertEqual(second.age, 0.06, accuracy: 0.001)
        source.pause()
        clock.advance(3) // a 3 s hold: the video stands still
        source.resume()
        clock.advance(0.5)
        XCTAssertEqual(try source.next()?.sourceTime ?? -1, 1.7, accuracy: 0.001, "goes on from where it stopped")
        clock.advance(10)
        let last = try XCTUnwrap(try source.next())
        XCTAssertEqual(last.sourceTime ?? -1, 3.9, accuracy: 0.001, "past the end: the last frame")
        XCTAssertNil(try source.next(), "then the video has ended")
    }

    func testRealtimeSkipsAheadByKeyFrameWhenFarBehind() throws {
        let path = dir.appendingPathComponent("long.mp4").path
        try TestMedia.clip(path, seconds: 12, fps: 25)
        let clock = ManualClock()
        let source = try VideoFileSource(path: path, pace: .realtime, clock: clock)
        _ = try source.next()
        clock.advance(9.02)
        XCTAssertEqual(try source.next()?.sourceTime ?? -1, 9.0, accuracy: 0.001)
    }

    func testAFileThatIsNotAVideo() throws {
        let text = dir.appendingPathComponent("notes.mp4")
        try Data("not a video at all\n".utf8).write(to: text)
        XCTAssertThrowsError(try VideoFileSource(path: text.path, clock: MonotonicClock())) { error in
            XCTAssertTrue("\(error)".hasPrefix("Could not open that video (\(text.path)):"), "\(error)")
        }
        XCTAssertThrowsError(try VideoFileSource(path: dir.appendingPathComponent("none.mp4").path, clock: MonotonicClock())) { error in
            XCTAssertTrue("\(error)".contains("there is no such file"), "\(error)")
        }
    }

    func testADamagedVideoIsReadUpToTheDamageWithoutCrashing() throws {
        let path = dir.appendingPathComponent("cut.ts")
        try Subprocess.shell("ffmpeg -v error -y -f lavfi -i testsrc2=s=320x180:r=25:d=4 -c:v libx264 -preset ultrafast -f mpegts '\(path.path)'")
        var bytes = try Data(contentsOf: path)
        bytes.replaceSubrange(20_000..<min(bytes.count, 60_000), with: Data(repeating: 0x47, count: 40_000))
        try bytes.write(to: path)
        let source = try VideoFileSource(path: path.path, pace: .frames(every: 0.2), clock: MonotonicClock())
        var frames = 0
        do { while try source.next() != nil { frames += 1 } } catch {
            XCTAssertTrue("\(error)".hasPrefix("Could not read that video"), "\(error)")
        }
        XCTAssertGreaterThan(frames, 0, "the frames before the damage are read")
    }

    func testAStreamServedOnLoopback() throws {
        let port = Int.random(in: 20_000...40_000)
        let server = try TestMedia.udpStream(port: port)
        defer { server.terminate(); server.waitUntilExit() }
        let source = try LiveStreamSource(url: "udp://127.0.0.1:\(port)", maxSide: 160, clock: MonotonicClock(), stallTimeout: 10)
        XCTAssertEqual(source.info.kind, "stream")
        var times: [Double] = []
        for _ in 0..<3 {
            let frame = try XCTUnwrap(try source.next())
            XCTAssertEqual(frame.image.width, 160)
            XCTAssertLessThan(frame.age, 1, "the newest frame, not a backlog")
            times.append(try XCTUnwrap(frame.sourceTime))
            usleep(300_000)
        }
        XCTAssertGreaterThan(times[2] - times[0], 0.4, "the stream moved on between frames")
    }

    /// A stream that ends and is served again: the frames after its return say they come from its
    /// second opening (a camera's kept tower results are of one opening).
    func testAStreamsFramesSayWhichOpeningTheyCameFrom() throws {
        let port = Int.random(in: 20_000...40_000)
        let serve = "ffmpeg -v error -re -f lavfi -i testsrc2=s=320x180:r=25 -t SECONDS -c:v mpeg1video -f mpegts -listen 1 http://127.0.0.1:\(port)/"
        let server = Process()
        server.executableURL = URL(fileURLWithPath: "/bin/sh")
        server.arguments = ["-c", serve.replacingOccurrences(of: "SECONDS", with: "1") + "; " + serve.replacingOccurrences(of: "SECONDS", with: "3")]
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        var opened: LiveStreamSource?
        Poll.until(within: 10, every: 0.1) {
            opened = try? LiveStreamSource(url: "http://127.0.0.1:\(port)/", maxSide: 160, clock: MonotonicClock(), stallTimeout: 10)
            return opened != nil
        }
        let source = try XCTUnwrap(opened, "the stream is served")
        XCTAssertEqual(try XCTUnwrap(try source.next()).opening, 1)
        var openings: Set<Int> = []
        let deadline = Date(timeIntervalSinceNow: 15)
        while !openings.contains(2), Date() < deadline, let frame = try source.next() { openings.insert(frame.opening) }
        XCTAssertTrue(openings.contains(2), "frames after the return: \(openings)")
    }
}

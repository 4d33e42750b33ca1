import Foundation
import TestSupport
import XCTest

/// logrotate (the real program, with the shipped systemd/lookd.logrotate pointed at a test log)
/// rotates the event log of a busy watch several times; SIGUSR1 moves lookd to the new file. Every
/// line of every file parses, and the frames' lines run 1…N with none lost or written twice.
final class LogRotationTests: XCTestCase {
    func testNoLineIsLostOrCutAcrossRotationsUnderLoad() throws {
        let dir = try Fixtures.scratch()
        let photos = try TestMedia.photoFolder(in: dir)
        let script = try Fixtures.script(["1. Yes", "1. No"], in: dir)
        let log = dir.appendingPathComponent("events.jsonl").path
        let watch = Process()
        watch.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        watch.arguments = [
            "watch", "--source", photos, "--rules", "a card=log", "--model", "script:" + script, "--photo-seconds", "0", "--no-sound",
            "--record", dir.path, "--log", log,
        ]
        watch.standardError = FileHandle.nullDevice
        try watch.run()
        EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: 20)

        // The shipped rotation, pointed at this log, uncompressed, and signalling this process.
        var config = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/lookd.logrotate"), encoding: .utf8)
        config = config.replacingOccurrences(of: "/var/lib/lookd/lookd-events.jsonl", with: log)
            .replacingOccurrences(of: "    compress\n", with: "").replacingOccurrences(of: "    delaycompress\n", with: "")
            .replacingOccurrences(of: "create 0640 lookd lookd", with: "create 0640")
            .replacingOccurrences(
                of: "systemctl kill --signal=SIGUSR1 --kill-whom=main lookd.service 'lookd@*.service'", with: "kill -USR1 \(watch.processIdentifier)")
        let conf = dir.appendingPathComponent("logrotate.conf").path
        try config.write(toFile: conf, atomically: true, encoding: .utf8)
        for _ in 0..<4 {
            try Subprocess.shell("/usr/sbin/logrotate -f -s '\(dir.path)/logrotate.state' '\(conf)'")
            usleep(300_000)
        }
        watch.terminate()
        watch.waitUntilExit()
        XCTAssertEqual(watch.terminationStatus, 0)

        // Oldest first: events.jsonl.4 … .1, then the live file.
        let files = (1...4).reversed().map { "\(log).\($0)" } + [log]
        var frames: [Int] = []
        for file in files {
            XCTAssertTrue(FileManager.default.fileExists(atPath: file), file)
            let lines = try EventLogFile.read(file)
            if file != files.first { XCTAssertEqual(lines.first?["event"] as? String, "log_reopened", file) }
            frames += lines.filter { $0["event"] as? String == "watch" }.compactMap { $0["frame"] as? Int }
        }
        XCTAssertGreaterThan(frames.count, 20)
        XCTAssertEqual(frames, Array(1...frames.count), "every frame's line once, in order, across the files")
    }
}

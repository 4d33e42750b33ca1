import Foundation
import TestFixtures
import TestSupport
import XCTest

/// lookd as the service runs it, as a subprocess: sd_notify to a socket the test binds, SIGHUP
/// reloads (a valid file, then a bad one), `lookd status`, `--watch-rules`, and the unit file.
final class ServiceTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func write(_ text: String, to name: String) throws -> String {
        let file = path(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A cat that comes and goes every other frame; a 10 s clip at 10 frames a second.
    private func setUp(rules: String) throws -> (clip: String, rules: String, script: String) {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 10, fps: 10)
        let answers = (0..<200).map { $0 % 2 == 0 ? "1. Yes\\n2. No" : "1. No\\n2. No" }.joined(separator: "\n")
        return (clip, try write(rules, to: "rules.yaml"), try write(answers + "\n", to: "script.txt"))
    }

    private func status(_ file: String) throws -> Subprocess {
        try Subprocess.run(Fixtures.lookd, ["status", "--status", file])
    }

    /// Under the service, a camera or stream that is not there at the start is waited for (lost,
    /// tried again with backoff, found), as one that goes away during a run is; on a terminal it is
    /// refused (exit 7), where a typo is likelier.
    func testTheServiceWaitsForASourceThatIsNotThereYet() throws {
        let (_, rules, script) = try setUp(rules: "rules:\n  - when: a cat\n    log: true\n")
        let camera = "/dev/video-lookd-test-\(getpid())"
        let terminal = try Subprocess.run(Fixtures.lookd, ["watch", "--source", camera, "--rules", rules, "--model", "script:" + script])
        XCTAssertEqual(terminal.status, 7, terminal.stderr)

        let notify = try NotifySocket(in: dir)
        let log = path("camera.jsonl")
        let waited = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", camera, "--rules", rules, "--model", "script:" + script, "--no-sound", "--log", log, "--record",
                path("out"), "--status", path("run/status.json"),
            ],
            environment: ["NOTIFY_SOCKET": notify.path]
        ) { process in
            XCTAssertTrue(notify.waitFor("READY=1"))
            EventLogFile.waitForLines(log, containing: "\"event\":\"camera_retry\"")
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(waited.status, 0, waited.stderr)
        let events = try EventLogFile.read(log)
        let lost = try XCTUnwrap(events.first { $0["event"] as? String == "camera_lost" })
        XCTAssertTrue((lost["reason"] as? String ?? "").contains(camera), "\(lost)")
        XCTAssertTrue(waited.stderr.contains("camera lost:"), waited.stderr)

        // A stream that comes later: lost, then found, then frames.
        let port = LoopbackPort.free()
        let streamLog = path("stream.jsonl")
        let server = Process()
        defer { if server.isRunning { server.terminate() } }
        let found = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", "http://127.0.0.1:\(port)/", "--rules", rules, "--model", "script:" + script, "--no-sound", "--log",
                streamLog, "--record", path("out2"), "--status", path("run2/status.json"),
            ],
            environment: ["NOTIFY_SOCKET": notify.path]
        ) { process in
            EventLogFile.waitForLines(streamLog, containing: "\"event\":\"stream_lost\"")
            server.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
            server.arguments = [
                "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=s=320x180:r=25", "-t", "20", "-c:v", "mpeg1video", "-f", "mpegts",
                "-listen", "1", "http://127.0.0.1:\(port)/",
            ]
            try? server.run()
            EventLogFile.waitForLines(streamLog, containing: "\"event\":\"watch\"")
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(found.status, 0, found.stderr)
        let kinds = try EventLogFile.read(streamLog).compactMap { $0["event"] as? String }
        let lostAt = try XCTUnwrap(kinds.firstIndex(of: "stream_lost"), "\(kinds)")
        let foundAt = try XCTUnwrap(kinds.firstIndex(of: "stream_found"), "\(kinds)")
        XCTAssertLessThan(lostAt, foundAt)
        XCTAssertTrue(kinds[foundAt...].contains("watch"), "frames after it came: \(kinds)")
    }

    func testNotifyReloadKeepsStateRejectsABadFileAndStatusShowsIt() throws {
        let (clip, rules, script) = try setUp(rules: "rules:\n  - when: a cat\n    count: true\n  - when: a dog\n    log: true\n")
        let notify = try NotifySocket(in: dir)
        let log = path("events.jsonl"), statusFile = path("run/status.json")
        var statusWhileRunning: Subprocess?
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", clip, "--rules", rules, "--model", "script:" + script,
                "--cooldown", "0", "--no-sound", "--log", log, "--record", path("out"),
                "--status", statusFile,
            ],
            environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"]
        ) { process in
            XCTAssertTrue(notify.waitFor("READY=1"))
            EventLogFile.waitForLines(log, containing: "\"shown\":\"×3\"")
            // A valid file: a cat keeps its count, the dog goes, a bird comes.
            try? "rules:\n  - when: a cat\n    count: true\n  - when: a bird\n    log: true\n".write(toFile: rules, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            EventLogFile.waitForLines(log, containing: "\"action\":\"reloaded\"")
            // A bad file: rejected with its line and column; the old rules stay.
            try? "rules:\n  - when: a cat\n    sound: trumpet\n".write(toFile: rules, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            EventLogFile.waitForLines(log, containing: "\"action\":\"rejected\"")
            EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: 40)
            statusWhileRunning = try? self.status(statusFile)
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        notify.stop()

        let messages = notify.messages
        XCTAssertTrue(messages.first?.hasPrefix("READY=1\nSTATUS=watching \(clip) · 2 rules") == true, "\(messages.prefix(2))")
        XCTAssertTrue(messages.contains { $0.hasPrefix("STATUS=first token ") && $0.contains(" · frame ") })
        XCTAssertTrue(messages.contains("WATCHDOG=1"), "the loop pets the watchdog")
        XCTAssertEqual(messages.filter { $0.hasPrefix("RELOADING=1\nMONOTONIC_USEC=") }.count, 2)
        XCTAssertEqual(messages.last, "STOPPING=1")

        let events = try EventLogFile.read(log)
        let reloaded = try XCTUnwrap(events.first { $0["action"] as? String == "reloaded" })
        XCTAssertEqual(reloaded["kept"] as? Int, 1)
        let rejected = try XCTUnwrap(events.first { $0["action"] as? String == "rejected" })
        XCTAssertEqual(rejected["error"] as? String, "\(rules):3:12: unknown sound \"trumpet\"; use chime, glass or bell")
        XCTAssertTrue(
            r.stderr.contains("rules not reloaded: \(rules):3:12: unknown sound \"trumpet\"; use chime, glass or bell; the old rules stay"), r.stderr)
        // The count went on across the reload: ×1, ×2, … without starting again.
        let counts = events.filter { $0["event"] as? String == "fire" && $0["condition"] as? String == "a cat" }
            .compactMap { ($0["shown"] as? String).flatMap { Int($0.dropFirst()) } }
        XCTAssertEqual(counts, Array(1...counts.count), "one count across the reloads")
        let birdAt = try XCTUnwrap(events.firstIndex { $0["action"] as? String == "reloaded" })
        XCTAssertFalse(events[birdAt...].contains { $0["condition"] as? String == "a dog" }, "the dog's rule is gone")
        // After the bad file, the rules in force are still the cat and the bird.
        let lastWatch = try XCTUnwrap(events.last { $0["event"] as? String == "watch" })
        XCTAssertEqual((lastWatch["answers"] as? [String])?.count, 2)

        let running = try XCTUnwrap(statusWhileRunning)
        XCTAssertEqual(running.status, 0, running.stderr)
        XCTAssertTrue(running.stdout.hasPrefix("lookd is watching: \(clip) · pid "), running.stdout)
        XCTAssertTrue(running.stdout.contains("rules from \(rules) (reloaded 1×):"), running.stdout)
        XCTAssertNotNil(
            running.stdout.range(of: #"  1\. a cat → count +×\d+ · answer (yes|no) · fired \d+×"#, options: .regularExpression), running.stdout)
        XCTAssertTrue(running.stdout.contains("  2. a bird → log"), running.stdout)
        XCTAssertTrue(running.stdout.contains("latest log lines:\n"), running.stdout)
        XCTAssertTrue(running.stdout.contains("\n  fire: a cat → count (frame "), running.stdout)
        let after = try status(statusFile)
        XCTAssertEqual(after.status, 1)
        XCTAssertTrue(after.stdout.hasPrefix("lookd is not running (last status, "), after.stdout)
        let none = try Subprocess.run(Fixtures.lookd, ["status", "--status", path("nothing.json")])
        XCTAssertEqual(none.status, 1)
        XCTAssertTrue(none.stderr.contains("No lookd watch is running here: no status file at \(path("nothing.json"))."), none.stderr)
    }

    func testWatchRulesReloadsWhenTheFileChangesAndSIGHUPDuringTheDelayIsKept() throws {
        let (clip, rules, script) = try setUp(rules: "rules:\n  - when: a cat\n    count: true\n")
        let log = path("events.jsonl")
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", clip, "--rules", rules, "--model", "script:" + script,
                "--watch-rules", "--delay", "1", "--no-sound", "--log", log, "--record", path("out"),
                "--status", path("status.json"),
            ]
        ) { process in
            EventLogFile.waitForLines(log, containing: "\"event\":\"start\"")
            usleep(200_000)
            kill(process.processIdentifier, SIGHUP) // before the first frame: kept, not fatal
            EventLogFile.waitForLines(log, containing: "\"action\":\"reloaded\"")
            EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: 5)
            try? "rules:\n  - when: a cat\n    count: true\n  - when: a fox\n    log: true\n".write(toFile: rules, atomically: true, encoding: .utf8)
            EventLogFile.waitForLines(log, containing: "\"why\":\"the file changed\"")
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        let reloads = try EventLogFile.read(log).filter { $0["action"] as? String == "reloaded" }
        XCTAssertEqual(reloads.map { $0["why"] as? String }, ["SIGHUP", "the file changed"])
        XCTAssertEqual(reloads.last?["count"] as? Int, 2)
    }

    func testTheUnitFileVerifies() throws {
        // systemd-analyze checks that ExecStart's program exists: point it at the built binary.
        let unit = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/lookd.service"), encoding: .utf8)
        for line in [
            "Type=notify", "ExecReload=/bin/kill -HUP $MAINPID", "WatchdogSec=", "User=lookd", "SupplementaryGroups=video audio",
            "ProtectSystem=strict", "StateDirectory=lookd", "RuntimeDirectory=lookd", "NoNewPrivileges=yes", "PrivateTmp=yes",
            "DevicePolicy=closed", "DeviceAllow=char-video4linux rw",
        ] {
            XCTAssertTrue(unit.contains(line), "the unit has \(line)")
        }
        let copy = try write(unit.replacingOccurrences(of: "/usr/local/bin/lookd", with: Fixtures.lookd), to: "lookd.service")
        let verify = try Subprocess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", copy])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no warnings")
        let broken = try write(
            unit.replacingOccurrences(of: "/usr/local/bin/lookd", with: Fixtures.lookd)
                .replacingOccurrences(of: "Type=notify", with: "Type=notifyy"), to: "broken.service")
        XCTAssertNotEqual(try Subprocess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", broken]).stderr, "", "the check can fail")
    }

    func testTheTemplateUnitVerifiesAndKeepsEachInstanceApart() throws {
        let unit = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/lookd@.service"), encoding: .utf8)
        for line in [
            "EnvironmentFile=/etc/lookd/%i.env", "--rules /etc/lookd/%i.yaml", "--name %i", "--record /var/lib/lookd/%i",
            "--log /var/lib/lookd/%i/lookd-events.jsonl", "--snapshots /var/lib/lookd/%i/snapshots", "--status /run/lookd-%i/status.json",
            "StateDirectory=lookd/%i lookd/models", "RuntimeDirectory=lookd-%i", "ProtectSystem=strict", "Type=notify",
        ] {
            XCTAssertTrue(unit.contains(line), "the template has \(line)")
        }
        // systemd-analyze verifies an instance of it (the env file must exist for the check).
        let env = try write("LOOKD_SOURCE=/dev/video1\n", to: "porch.env")
        let copy = try write(
            unit.replacingOccurrences(of: "/usr/local/bin/lookd", with: Fixtures.lookd).replacingOccurrences(of: "/etc/lookd/%i.env", with: env),
            to: "lookd@porch.service")
        let verify = try Subprocess.run("/usr/bin/systemd-analyze", ["verify", "--man=no", copy])
        XCTAssertEqual(verify.status, 0, verify.stderr)
        XCTAssertEqual(verify.stderr.trimmingCharacters(in: .whitespacesAndNewlines), "", "no warnings")
    }

    /// What the docs say of the units is what they are: the exposure systemd-analyze measures (at
    /// most the design's 1.9), and the rotated log's mode the one the unit's umask gives lookd's files.
    func testTheUnitsExposureAndModesAreWhatTheDocsSay() throws {
        let docs = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/service.md"), encoding: .utf8)
        for name in ["lookd.service", "lookd@.service"] {
            let file = try write(
                try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/\(name)"), encoding: .utf8)
                    .replacingOccurrences(of: "/usr/local/bin/lookd", with: Fixtures.lookd), to: name.replacingOccurrences(of: "@", with: "@x"))
            let r = try Subprocess.run("/usr/bin/systemd-analyze", ["security", "--offline=yes", "--no-pager", file])
            let level = try XCTUnwrap(r.stdout.firstMatch(of: /Overall exposure level for [^:]+: ([0-9.]+)/)?.1, r.stdout + r.stderr)
            XCTAssertLessThanOrEqual(Double(level) ?? 99, 1.9, name)
            XCTAssertTrue(docs.contains("`systemd-analyze security` exposure \(level), both units"), "docs/service.md says \(level) for \(name)")
        }
        let unit = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/lookd.service"), encoding: .utf8)
        let umask = try XCTUnwrap(Int(try XCTUnwrap(unit.firstMatch(of: /UMask=([0-7]+)/)?.1), radix: 8))
        let rotation = try String(contentsOf: Fixtures.root.appendingPathComponent("systemd/lookd.logrotate"), encoding: .utf8)
        XCTAssertTrue(rotation.contains("create 0\(String(0o666 & ~umask, radix: 8)) lookd lookd"), "the new log's mode is lookd's own files'")
    }
}

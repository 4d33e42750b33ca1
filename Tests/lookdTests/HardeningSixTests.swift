import Foundation
import TestFixtures
import TestSupport
import XCTest

/// Hardening 6, through the binary: one camera never holds the others up (a source whose open never
/// ends, an effect's hold), and what the records show of it.
final class HardeningSixTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func example(_ name: String) -> String { Fixtures.root.appendingPathComponent("examples/\(name)").path }

    /// `lookd watch` with `args` and a scripted model, killed after `limit` seconds (a hang is a failure).
    private func watch(_ args: [String], answers: String = "1. Yes", limit: Double = 60) throws -> (Subprocess, [[String: Any]], Double) {
        try answers.write(toFile: path("answers.txt"), atomically: true, encoding: .utf8)
        let started = Date()
        let r = try Subprocess.run(
            Fixtures.lookd, ["watch", "--model", "script:\(path("answers.txt"))", "--record", path("run"), "--no-sound"] + args,
            environment: ["GGML_NO_BACKTRACE": "1"]
        ) { process in DispatchQueue.global().asyncAfter(deadline: .now() + limit) { if process.isRunning { process.terminate() } } }
        let seconds = Date().timeIntervalSince(started)
        let log = (try? String(contentsOfFile: path("run/lookd-events.jsonl"), encoding: .utf8)) ?? ""
        let lines = log.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return (r, lines, seconds)
    }

    private func events(_ lines: [[String: Any]], _ name: String, camera: String? = nil) -> [[String: Any]] {
        lines.filter { $0["event"] as? String == name && (camera == nil || $0["camera"] as? String == camera) }
    }

    /// A camera whose source is a FIFO with no writer: its open never ends. The other camera is
    /// watched, the slow one is named as lost, and the run stops on time.
    func testASourceWhoseOpenNeverEndsHoldsNoOtherCameraAndIsNamed() throws {
        XCTAssertEqual(mkfifo(path("door.fifo"), 0o600), 0)
        let (r, lines, seconds) = try watch([
            "--camera", "door=\(path("door.fifo"))", "--camera", "yard=\(example("yard.mp4"))", "--rules", "a green triangle=log",
            "--pace", "frames", "--seconds", "3",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertLessThan(seconds, 40, "the run stopped on time")
        let lost = try XCTUnwrap(events(lines, "video_lost", camera: "door").first, "the door is named as lost\n\(r.stderr)")
        XCTAssertTrue((lost["reason"] as? String)?.contains("did not open within 10 s") == true, "\(lost)")
        XCTAssertGreaterThan(events(lines, "watch", camera: "yard").count, 2, "the yard was watched")
        XCTAssertTrue(r.stderr.contains("did not open within 10 s"), r.stderr)

        // One source alone that never opens: said, and the watch still stops when told.
        let (alone, _, took) = try watch(["--source", path("door.fifo"), "--rules", "a cat=log", "--seconds", "1"])
        XCTAssertLessThan(took, 40)
        XCTAssertTrue(alone.stderr.contains("video lost: \(path("door.fifo")) did not open within 10 s"), "\(alone.status) \(alone.stderr)")
        XCTAssertNotEqual(alone.status, 15, "it ended by itself, not by the test's kill")
    }

    /// An effect's hold is the door's own business: the yard is asked while the door holds its frame.
    func testTheOtherCamerasAreAskedWhileOneCameraHoldsAnEffect() throws {
        try """
        settings:
          cameras:
            door: \(example("shapes.mp4"))
            yard: \(example("yard.mp4"))
        rules:
          - when: a red ball
            effect: ripple
            cameras: [door]
          - when: a green triangle
            log: true
            cameras: [yard]
        """.write(toFile: path("rules.yaml"), atomically: true, encoding: .utf8)
        let (r, lines, _) = try watch(["--rules", path("rules.yaml"), "--hold", "3", "--seconds", "6"], answers: "!wait 0.05 1. Yes")
        XCTAssertEqual(r.status, 0, r.stderr)
        let hold = try XCTUnwrap(events(lines, "hold", camera: "door").first, "the door held its frame\n\(r.stderr)")
        let fire = try XCTUnwrap(events(lines, "fire", camera: "door").first)
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let (from, to) = (try XCTUnwrap(format.date(from: fire["t"] as? String ?? "")), try XCTUnwrap(format.date(from: hold["t"] as? String ?? "")))
        XCTAssertGreaterThan(to.timeIntervalSince(from), 2.5, "the hold lasted its 3 s")
        let during = events(lines, "watch", camera: "yard").compactMap { format.date(from: $0["t"] as? String ?? "") }.filter { $0 > from && $0 < to }
        XCTAssertGreaterThan(during.count, 5, "the yard was asked while the door held (\(during.count) answers)")
    }

    /// Cameras that reloads add and remove leave nothing behind: the process has as many threads
    /// after 25 add/remove cycles as after 2 (espeak-ng's thread, once one a camera, is the process's).
    func testCamerasAddedAndRemovedByReloadsLeaveNoThreadBehind() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        try "!wait 0.1 1. Yes".write(toFile: path("answers.txt"), atomically: true, encoding: .utf8)
        let rules = path("rules.yaml")
        func write(porch: Bool) throws {
            let cameras = "settings:\n  cameras:\n    door: \(photos)\n" + (porch ? "    porch: \(photos)\n" : "")
            try (cameras + "rules:\n  - when: a cat\n    say: a cat\n").write(toFile: rules, atomically: true, encoding: .utf8)
        }
        try write(porch: false)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--rules", rules, "--model", "script:\(path("answers.txt"))", "--photo-seconds", "0.2", "--record", path("run"),
            "--seconds", "300",
        ]
        p.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": "unix:\(path("no-pulse"))", "GGML_NO_BACKTRACE": "1"]) {
            $1
        }
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let log = path("run/lookd-events.jsonl")
        func count(_ event: String, _ camera: String = "porch") -> Int {
            ((try? EventLogFile.read(log)) ?? []).filter { $0["camera"] as? String == camera && $0["event"] as? String == event }.count
        }
        XCTAssertTrue(Poll.until(within: 30) { count("watch", "door") > 0 }, "the door is watched")
        func threads() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/\(p.processIdentifier)/task").count }
        var after: [Int: Int] = [:]
        for cycle in 1...25 {
            try write(porch: true)
            kill(p.processIdentifier, SIGHUP)
            XCTAssertTrue(Poll.until(within: 30) { count("watch") > 0 && count("start") == cycle }, "cycle \(cycle): the porch is watched")
            try write(porch: false)
            kill(p.processIdentifier, SIGHUP)
            XCTAssertTrue(Poll.until(within: 30) { count("done") == cycle }, "cycle \(cycle): the porch stopped")
            after[cycle] = try threads()
        }
        let (early, late) = (try XCTUnwrap(after[2]), try XCTUnwrap(after[25]))
        XCTAssertLessThanOrEqual(late, early + 2, "threads after 2 cycles: \(early), after 25: \(late)")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
    }

    /// Every file a watch writes named by a bare relative name, in the working folder (Swift 6.3's
    /// Foundation trapped on the folder of such a path): the watch runs, and the tools read them.
    func testFilesNamedByBareRelativeNames() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        try "!wait 0.05 1. Yes".write(toFile: path("answers.txt"), atomically: true, encoding: .utf8)
        let r = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", "a cat=log", "--model", "script:answers.txt", "--record", "r", "--log", "ev.jsonl",
                "--status", "st.json", "--state", "state.json", "--snapshots", "snaps", "--history", "h.sqlite", "--seconds", "1",
                "--no-sound",
            ], environment: ["GGML_NO_BACKTRACE": "1"], directory: dir.path)
        XCTAssertEqual(r.status, 0, r.stderr)
        for name in ["r", "ev.jsonl", "st.json", "snaps", "h.sqlite"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: path(name)), name)
        }
        let history = try Subprocess.run(Fixtures.lookd, ["history", "--db", "h.sqlite"], directory: dir.path)
        XCTAssertEqual(history.status, 0, history.stderr)
        XCTAssertTrue(history.stdout.contains("1 fire from h.sqlite"), history.stdout)
        let status = try Subprocess.run(Fixtures.lookd, ["status", "--status", "st.json"], directory: dir.path)
        XCTAssertTrue(status.stdout.contains("stopped"), status.stdout + status.stderr)
    }

    /// `lookd history --http` over the history of two cameras whose snapshots share a name (each
    /// camera's first fire): each fire's picture is its own camera's, found by its row; the fires can
    /// be filtered by camera; no live page or /metrics where no watch runs.
    func testTheReviewPageOfSeveralCamerasServesEachFiresOwnPicture() throws {
        let (r, _, _) = try watch([
            "--camera", "door=\(example("shapes.mp4"))", "--camera", "yard=\(example("yard.mp4"))", "--rules", "a thing=log",
            "--snapshots", path("snaps"), "--pace", "frames", "--seconds", "2",
        ])
        XCTAssertEqual(r.status, 0, r.stderr)
        let page = try ReviewPage(db: path("run/lookd-history.sqlite"))
        let api = try page.get("/api/history")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(api.body.utf8)) as? [String: Any])
        XCTAssertEqual(json["cameras"] as? [String], ["door", "yard"], "the camera filter")
        let fires = try XCTUnwrap(json["fires"] as? [[String: Any]])
        var pictures: [String: String] = [:]
        for fire in fires where fire["fire"] as? Int == 1 {
            let camera = try XCTUnwrap(fire["camera"] as? String)
            let url = try XCTUnwrap(fire["snapshot_url"] as? String)
            XCTAssertTrue(url.hasPrefix("/camera/\(camera)/snapshots/fire-"), url)
            let got = try page.get(url)
            XCTAssertEqual(got.code, "200", url)
            pictures[camera] = got.body
        }
        XCTAssertEqual(Set(pictures.keys), ["door", "yard"])
        XCTAssertNotEqual(pictures["door"], pictures["yard"], "each fire shows its own camera's picture")
        let door = try page.get("/api/history?camera=door")
        XCTAssertFalse(door.body.contains("\"camera\":\"yard\""), door.body)
        XCTAssertEqual(try page.get("/metrics").code, "404", "no /metrics where no watch runs")
        XCTAssertTrue(try page.get("/").body.contains("<html"), "/ is the history")
    }
}

import Foundation
import TestFixtures
import TestSupport
import XCTest

/// Several cameras in one lookd with one model: shapes-tiny, through the real engine, on two drawn
/// clips of the shapes world (examples/shapes.mp4 at the door, examples/yard.mp4 in the yard), whose
/// truth is known. The yard's clip has a red square and no yellow star; the door's the other way
/// round; a green triangle crosses both.
final class CamerasTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private func example(_ name: String) -> String { Fixtures.root.appendingPathComponent("examples/\(name)").path }
    private var environment: [String: String] { ["LOOKD_MODELS": path("models"), "GGML_NO_BACKTRACE": "1"] }

    /// Runs `lookd watch` with `args` over the clips a frame a second; the event log's lines.
    private func watch(_ args: [String], record: String, status: Int32 = 0) throws -> [[String: Any]] {
        let r = try Subprocess.run(
            Fixtures.lookd, ["watch", "--model", "shapes-tiny", "--pace", "frames", "--record", path(record)] + args, environment: environment)
        XCTAssertEqual(r.status, status, r.stderr)
        let log = try String(contentsOfFile: path("\(record)/lookd-events.jsonl"), encoding: .utf8)
        return try log.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    /// The fires in `lines`: camera and condition.
    private func fires(_ lines: [[String: Any]]) -> Set<String> {
        Set(lines.filter { $0["event"] as? String == "fire" }.map { "\($0["camera"] as? String ?? "?"): \($0["condition"] as? String ?? "?")" })
    }

    func testARuleForOneCameraNeverFiresForTheOtherAndARuleForAllFiresOnEach() throws {
        // Without cameras: on its rules, each rule is asked on both cameras, and the model sees the
        // red square in the yard and the yellow star at the door.
        let open = try watch(
            [
                "--camera", "door=\(example("shapes.mp4"))", "--camera", "yard=\(example("yard.mp4"))", "--rules",
                "a red square=log|a yellow star=log",
            ],
            record: "open")
        XCTAssertEqual(fires(open), ["yard: a red square", "door: a yellow star"])

        // examples/cameras.yaml limits the red square to the door and the yellow star to the yard.
        let lines = try watch(["--rules", example("cameras.yaml")], record: "limited")
        XCTAssertEqual(fires(lines), ["door: a green triangle", "yard: a green triangle", "yard: a green ball"])
        XCTAssertTrue(lines.allSatisfy { ["door", "yard"].contains($0["camera"] as? String ?? "") }, "every line names its camera")
        let asked = lines.filter { $0["event"] as? String == "watch" }
        XCTAssertEqual(asked.filter { $0["camera"] as? String == "door" }.count, 30, "a frame a second of the door's 30 s")
        XCTAssertEqual(asked.filter { $0["camera"] as? String == "yard" }.count, 20, "and of the yard's 20 s")
        let doorAnswers = asked.filter { $0["camera"] as? String == "door" }.compactMap { ($0["answers"] as? [String])?.count }
        XCTAssertEqual(Set(doorAnswers), [2], "the door asks its two rules only")
        let all = try Subprocess.run(Fixtures.lookd, ["history", "--db", path("limited/lookd-history.sqlite")])
        XCTAssertTrue(all.stdout.hasPrefix("time                 camera  rule"), "the listing's camera column:\n\(all.stdout)")

        // Each camera's records are in its folder, and name it; the history is one, its rows naming their camera.
        for camera in ["door", "yard"] {
            let folder = path("limited/\(camera)")
            let record = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasPrefix("watch-run-") })
            let json = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(folder)/\(record)"))) as? [String: Any])
            XCTAssertEqual(json["camera"] as? String, camera)
            let history = try Subprocess.run(Fixtures.lookd, ["history", "--db", path("limited/lookd-history.sqlite"), "--camera", camera, "--json"])
            XCTAssertEqual(history.status, 0, history.stderr)
            let kept = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]])
            let expected = camera == "door" ? ["a green triangle"] : ["a green ball", "a green triangle"]
            XCTAssertEqual(kept.compactMap { $0["condition"] as? String }.sorted(), expected, "\(camera)'s fires in the one history")
            XCTAssertEqual(Set(kept.compactMap { $0["camera"] as? String }), [camera])
        }
    }

    func testCheckListsTheCamerasAndARuleNamingNoCameraIsRefusedWithItsLine() throws {
        let check = try Subprocess.run(Fixtures.lookd, ["check", example("cameras.yaml")])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertTrue(check.stdout.contains("  door: asks rules 1, 2\n"), check.stdout)
        XCTAssertTrue(check.stdout.contains("  yard: asks rules 1, 3, 4\n"), check.stdout)
        XCTAssertTrue(check.stdout.contains("gate-threshold       0.03"), "the yard's own setting: \(check.stdout)")
        let paced = try Subprocess.run(Fixtures.lookd, ["check", example("cameras.yaml"), "--pace", "frames"])
        XCTAssertEqual(paced.status, 0, "what watch takes with cameras, check takes: \(paced.stderr)")

        let rules = path("rules.yaml")
        try "rules:\n  - when: a cat\n    log: true\n    cameras: garage\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let r = try Subprocess.run(
            Fixtures.lookd, ["watch", "--camera", "door=\(example("shapes.mp4"))", "--rules", rules, "--model", "shapes-tiny"],
            environment: environment)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("\(rules):2:5: the rule \"a cat\" names the camera \"garage\""), r.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("lookd-events.jsonl")), "nothing left behind")
    }

    func testACameraThatCannotBeOpenedDoesNotStopTheOthersAndTheLogStays() throws {
        let lines = try watch(
            ["--camera", "door=\(example("shapes.mp4"))", "--camera", "attic=\(path("no-such.mp4"))", "--rules", "a green triangle=log"],
            record: "one-lost", status: 7) // the others watched to their end, and the exit code says one camera was not
        let error = try XCTUnwrap(lines.first { $0["event"] as? String == "error" }, "the lost camera's error line")
        XCTAssertEqual(error["camera"] as? String, "attic")
        XCTAssertEqual(error["stage"] as? String, "source")
        XCTAssertEqual(fires(lines), ["door: a green triangle"], "the door was watched to its end")
        XCTAssertEqual(lines.last?["event"] as? String, "done")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("one-lost/attic")), "the lost camera leaves no folder")

        let none = try Subprocess.run(
            Fixtures.lookd,
            [
                "watch", "--camera", "attic=\(path("no-such.mp4"))", "--camera", "cellar=\(path("none.mp4"))", "--rules", "a cat=log",
                "--model", "shapes-tiny", "--record", path("none"),
            ], environment: environment)
        XCTAssertEqual(none.status, 7, "no camera opens: the source's exit code\n\(none.stderr)")
        XCTAssertTrue(none.stderr.contains("the camera attic:") && none.stderr.contains("the camera cellar:"), none.stderr)
    }

    func testACameraNoRuleIsAskedOnIsRefused() throws {
        let rules = path("door.yaml")
        try "rules:\n  - when: a green triangle\n    log: true\n    cameras: door\n".write(toFile: rules, atomically: true, encoding: .utf8)
        let r = try Subprocess.run(
            Fixtures.lookd, ["check", rules, "--camera", "door=\(example("shapes.mp4"))", "--camera", "porch=\(example("yard.mp4"))"])
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("no rule is asked on the camera porch"), r.stderr)
    }

    /// The rule names in Home Assistant's discovery under `device` (lookd's instance name with the camera's).
    private func discovered(_ broker: Mosquitto, _ device: String) throws -> Set<String> {
        let out = try Subprocess.run(
            "/usr/bin/mosquitto_sub",
            ["-p", String(broker.port), "-t", "homeassistant/binary_sensor/\(device)/+/config", "-v", "-W", "1", "--retained-only"]
        ).stdout
        return Set(
            out.split(separator: "\n").compactMap { line in line.range(of: "\"name\":\"").map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
            })
    }

    func testHomeAssistantSeesADeviceACameraAndAReloadGivesEachCameraItsRules() throws {
        let broker = try Mosquitto()
        let photos = try TestMedia.photoFolder(in: dir)
        let rules = path("rules.yaml")
        let cameras = "settings:\n  cameras:\n    door: \(photos)\n    yard: \(photos)\n"
        try (cameras + "rules:\n  - when: a green triangle\n    log: true\n  - when: a red square\n    log: true\n    cameras: door\n").write(
            toFile: rules, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--rules", rules, "--model", "shapes-tiny", "--photo-seconds", "0", "--no-sound", "--record", path("records"), "--mqtt",
            broker.url, "--name", "house", "--seconds", "120",
        ]
        let runtime = ["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""]
        p.environment = environment.merging(runtime) { $1 }
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let log = path("records/lookd-events.jsonl")
        XCTAssertTrue(
            Poll.until(within: 30) { (try? self.discovered(broker, "house-door")) == ["a green triangle", "a red square"] }, "the door's device")
        XCTAssertEqual(try discovered(broker, "house-yard"), ["a green triangle"], "the yard's device has the rules asked on it")
        XCTAssertEqual(try broker.retainedText("lookd/house-door/availability"), "online")
        XCTAssertEqual(try broker.retainedText("lookd/house-yard/availability"), "online")
        // A status file a camera, and lookd status lists both.
        // (A status file is written to a hidden temporary file and renamed: those come and go.)
        let files = try FileManager.default.contentsOfDirectory(atPath: path("run/lookd")).filter { !$0.hasPrefix(".") }.sorted()
        XCTAssertEqual(files, ["status-\(p.processIdentifier)-door.json", "status-\(p.processIdentifier)-yard.json"])
        let status = try Subprocess.run(Fixtures.lookd, ["status"], environment: runtime)
        XCTAssertEqual(status.status, 0, status.stderr)
        XCTAssertTrue(status.stdout.contains("-door.json)") && status.stdout.contains("-yard.json)"), status.stdout)
        XCTAssertEqual(status.stdout.components(separatedBy: " answers a minute, frames ").count, 3, "each camera's pace: \(status.stdout)")

        // A rule for the yard only: the yard's device gains it, the door's does not.
        try
            (cameras + "rules:\n  - when: a green triangle\n    log: true\n  - when: a red square\n    log: true\n    cameras: door\n"
            + "  - when: a green ball\n    log: true\n    cameras: yard\n").write(toFile: rules, atomically: true, encoding: .utf8)
        kill(p.processIdentifier, SIGHUP)
        EventLogFile.waitForLines(log, containing: "\"action\":\"reloaded\"", count: 2)
        let reloaded = try EventLogFile.read(log).filter { $0["action"] as? String == "reloaded" }
        let byCamera = Dictionary(
            uniqueKeysWithValues: reloaded.map {
                ($0["camera"] as? String ?? "?", ($0["rules"] as? [[String: Any]] ?? []).compactMap { $0["condition"] as? String })
            })
        XCTAssertEqual(byCamera["door"], ["a green triangle", "a red square"])
        XCTAssertEqual(byCamera["yard"], ["a green triangle", "a green ball"])
        XCTAssertTrue(
            Poll.until(within: 20) { (try? self.discovered(broker, "house-yard")) == ["a green triangle", "a green ball"] }, "the yard's new rule")
        XCTAssertEqual(try discovered(broker, "house-door"), ["a green triangle", "a red square"])

        // Each camera's device has a switch that pauses the whole camera: the door pauses, the yard goes on.
        let switchConfig = try XCTUnwrap(try broker.retainedText("homeassistant/switch/house-door/watching/config"), "the door's switch")
        XCTAssertTrue(switchConfig.contains("\"command_topic\":\"lookd/house-door/watching/set\""), switchConfig)
        XCTAssertEqual(try broker.retainedText("lookd/house-yard/watching"), "ON")
        func count(_ camera: String, _ event: String, _ action: String? = nil) -> Int {
            ((try? EventLogFile.read(log)) ?? []).filter {
                $0["camera"] as? String == camera && $0["event"] as? String == event && (action == nil || $0["action"] as? String == action)
            }.count
        }
        func publish(_ topic: String, _ payload: String) throws {
            let r = try Subprocess.run(
                "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-m", payload])
            XCTAssertEqual(r.status, 0, r.stderr)
        }
        try publish("lookd/house-door/watching/set", "OFF")
        XCTAssertTrue(Poll.until(within: 10) { count("door", "command", "pause") == 1 }, "the door's pause in the event log")
        XCTAssertTrue(Poll.until(within: 10) { (try? broker.retainedText("lookd/house-door/watching")) == "OFF" })
        let (door, yard) = (count("door", "watch"), count("yard", "watch"))
        XCTAssertTrue(Poll.until(within: 20) { count("yard", "watch") >= yard + 10 }, "the yard goes on")
        XCTAssertLessThanOrEqual(count("door", "watch"), door + 1, "the door is not asked (but for a frame under way)")
        let doorStatus = try Data(contentsOf: URL(fileURLWithPath: path("run/lookd/status-\(p.processIdentifier)-door.json")))
        XCTAssertEqual((try JSONSerialization.jsonObject(with: doorStatus) as? [String: Any])?["state"] as? String, "paused")
        try publish("lookd/house-door/watching/set", "ON")
        XCTAssertTrue(Poll.until(within: 20) { count("door", "watch") > door + 3 }, "the door is asked again once resumed")
        XCTAssertEqual(count("door", "command", "resume"), 1)
        XCTAssertEqual(try broker.retainedText("lookd/house-door/watching"), "ON")
        XCTAssertNotNil(try broker.retainedText("homeassistant/switch/house-door/watching/config"), "no sweep takes the switch for a ghost")

        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        for camera in ["door", "yard"] {
            XCTAssertTrue(
                try FileManager.default.contentsOfDirectory(atPath: path("records/\(camera)")).contains { $0.hasPrefix("watch-run-") },
                "\(camera)'s run record, written at the stop")
        }
    }

    func testAReloadAddsStopsAndReopensCamerasAndTheOthersGoOn() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let rules = path("rules.yaml")
        let rule = "rules:\n  - when: a green triangle\n    log: true\n"
        try "settings:\n  cameras:\n    door: \(photos)\n    yard: \(photos)\n    attic: \(photos)\n\(rule)".write(
            toFile: rules, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--rules", rules, "--model", "shapes-tiny", "--photo-seconds", "0", "--no-sound", "--record", path("records"), "--seconds",
            "120",
        ]
        p.environment = environment.merging(["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""]) { $1 }
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let log = path("records/lookd-events.jsonl")
        func lines(_ camera: String, _ event: String) -> [[String: Any]] {
            ((try? EventLogFile.read(log)) ?? []).filter { $0["camera"] as? String == camera && $0["event"] as? String == event }
        }
        XCTAssertTrue(Poll.until(within: 30) { ["door", "yard", "attic"].allSatisfy { !lines($0, "watch").isEmpty } }, "every camera answers")

        // The yard goes, a porch comes, the door's picture size changes; the attic stays as it was.
        try "settings:\n  cameras:\n    door:\n      source: \(photos)\n      size: 48\n    attic: \(photos)\n    porch: \(photos)\n\(rule)".write(
            toFile: rules, atomically: true, encoding: .utf8)
        let atticBefore = lines("attic", "watch").count
        kill(p.processIdentifier, SIGHUP)
        XCTAssertTrue(Poll.until(within: 30) { !lines("porch", "watch").isEmpty }, "the porch is watched")
        XCTAssertTrue(Poll.until(within: 30) { lines("door", "start").count == 2 && lines("door", "watch").last?["size"] as? [Int] == [48, 48] })
        XCTAssertEqual(lines("yard", "stop").first?["reason"] as? String, "reload: the camera is no longer in cameras:")
        XCTAssertEqual(lines("door", "stop").first?["reason"] as? String, "reload: the camera changed")
        XCTAssertEqual(lines("yard", "start").count, 1, "the yard is not started again")
        XCTAssertEqual(lines("attic", "start").count, 1, "the attic went on: one run")
        XCTAssertTrue(Poll.until(within: 10) { lines("attic", "watch").count > atticBefore + 2 }, "and it goes on answering")

        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0)
        let doorRecords = try FileManager.default.contentsOfDirectory(atPath: path("records/door")).filter { $0.hasPrefix("watch-run-") }
        XCTAssertEqual(doorRecords.count, 2, "a run record for the door before the reload, and one after")
        for camera in ["attic", "porch", "yard"] { XCTAssertEqual(lines(camera, "done").count, 1, camera) }
    }

    /// `curl` on the page: the status and the body.
    private func fetch(_ url: String) throws -> (code: Int, body: String, location: String) {
        let out = path("body-\(UUID().uuidString.prefix(6))")
        let r = try Subprocess.run("/usr/bin/curl", ["-s", "-o", out, "-w", "%{http_code} %{redirect_url}", "--max-time", "10", url])
        let words = r.stdout.split(separator: " ", maxSplits: 1).map(String.init)
        return (Int(words.first ?? "") ?? 0, (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", words.count > 1 ? words[1] : "")
    }

    /// A folder holding one still of the yard's clip at `seconds`.
    private func still(_ name: String, at seconds: Double) throws -> String {
        let folder = path(name)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Subprocess.shell("ffmpeg -v error -y -ss \(seconds) -i '\(example("yard.mp4"))' -frames:v 1 '\(folder)/still.png'")
        return folder
    }

    func testOnePageShowsEveryCameraAndEachCamerasPageHistoryAndMetrics() throws {
        // Stills of the yard's clip: a green triangle at 8 s; the triangle, a red square and a ball at 14 s.
        let (door, yard) = (try still("door", at: 8), try still("yard", at: 14))
        let rules = path("rules.yaml")
        try
            "settings:\n  cameras:\n    door: \(door)\n    yard: \(yard)\n    attic: \(path("no-such"))\nrules:\n  - when: a green triangle\n    log: true\n"
            .write(toFile: rules, atomically: true, encoding: .utf8)
        let port = LoopbackPort.free()
        let site = "http://127.0.0.1:\(port)"
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--rules", rules, "--model", "shapes-tiny", "--photo-seconds", "0.2", "--no-sound", "--record", path("records"), "--snapshots",
            path("snapshots"), "--http", "127.0.0.1:\(port)", "--seconds", "120",
        ]
        p.environment = environment.merging(["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""]) { $1 }
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }

        // One address: /api/cameras has every camera, the one that did not open saying why.
        func cameras() -> [String: [String: Any]] {
            guard let body = try? fetch("\(site)/api/cameras").body,
                let list = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [[String: Any]]
            else { return [:] }
            return Dictionary(list.map { ($0["camera"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        }
        XCTAssertTrue(Poll.until(within: 30) { ["door", "yard"].allSatisfy { cameras()[$0]?["frame"] is Int } }, "both cameras answer")
        let all = cameras()
        XCTAssertEqual(Set(all.keys), ["door", "yard", "attic"])
        XCTAssertTrue((all["attic"]?["not_watched"] as? String)?.contains("no-such") == true, "\(all["attic"] ?? [:])")
        XCTAssertEqual(all["door"]?["page"] as? String, "/camera/door/")
        XCTAssertEqual((all["yard"]?["status"] as? [String: Any])?["source"] as? String, yard)

        // Each camera's page is below its name, and is that camera's.
        let status = try fetch("\(site)/camera/door/api/status")
        XCTAssertEqual(status.code, 200)
        XCTAssertTrue(status.body.contains("\"source\":\"\(door)\""), status.body)
        XCTAssertEqual(try fetch("\(site)/camera/yard/frame.jpg").code, 200)
        let bare = try fetch("\(site)/camera/door")
        XCTAssertEqual(bare.code, 308)
        XCTAssertEqual(bare.location, "\(site)/camera/door/")
        XCTAssertEqual(try fetch("\(site)/camera/garage/").code, 404)
        XCTAssertTrue(try fetch("\(site)/camera/attic/").body.contains("not watched"))

        // Every fire in the one history, each snapshot served by its camera's page; a camera's page lists its own.
        func history(_ url: String) -> [[String: Any]] {
            let body = (try? fetch(url).body) ?? ""
            return ((try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])?["fires"] as? [[String: Any]]) ?? []
        }
        XCTAssertTrue(
            Poll.until(within: 30) { Set(history("\(site)/api/history").compactMap { $0["camera"] as? String }) == ["door", "yard"] },
            "a fire of each camera")
        for camera in ["door", "yard"] {
            let own = history("\(site)/api/history?camera=\(camera)")
            XCTAssertFalse(own.isEmpty)
            XCTAssertTrue(own.allSatisfy { $0["camera"] as? String == camera }, "\(own)")
            let snapshot = try XCTUnwrap(own.first?["snapshot_url"] as? String)
            XCTAssertTrue(snapshot.hasPrefix("/camera/\(camera)/snapshots/fire-"), snapshot)
            XCTAssertEqual(try fetch(site + snapshot).code, 200, snapshot)
            let mine = history("\(site)/camera/\(camera)/api/history")
            XCTAssertEqual(mine.count, own.count, "a camera's page has its own fires only")
            XCTAssertTrue(mine.allSatisfy { ($0["snapshot_url"] as? String)?.hasPrefix("/snapshots/") == true }, "below its base")
        }

        // /metrics: every camera's samples, labelled; each family said once; the process's memory once.
        let metrics = try fetch("\(site)/metrics").body
        XCTAssertTrue(metrics.contains("lookd_frames_total{camera=\"door\",outcome=\"answered\"}"), metrics)
        XCTAssertTrue(metrics.contains("lookd_frames_total{camera=\"yard\",outcome=\"answered\"}"), metrics)
        XCTAssertTrue(metrics.contains("lookd_model_seconds_bucket{camera=\"yard\",le=\"0.05\"}"), metrics)
        XCTAssertEqual(metrics.components(separatedBy: "# TYPE lookd_frames_total counter").count, 2, "one HELP and TYPE a family")
        XCTAssertEqual(metrics.components(separatedBy: "\nprocess_resident_memory_bytes ").count, 2, metrics)

        // In a browser: a tile a camera, with its rules, and the one not watched saying so.
        let args = ["--headless", "--no-sandbox", "--disable-gpu", "--timeout=2500", "--user-data-dir=\(path("chromium"))", "--dump-dom"]
        let dom = try Subprocess.run("/usr/bin/chromium", args + ["\(site)/"]).stdout
        for camera in ["door", "yard", "attic"] { XCTAssertTrue(dom.contains("data-camera=\"\(camera)\""), "\(camera)'s tile:\n\(dom)") }
        XCTAssertTrue(dom.contains("src=\"/camera/door/frame.jpg?n="), dom)
        XCTAssertTrue(dom.contains("not watched: "), dom)
        XCTAssertTrue(dom.contains("a green triangle → log"), dom)
        let page = try Subprocess.run("/usr/bin/chromium", args + ["\(site)/camera/yard/"]).stdout
        XCTAssertTrue(page.contains("src=\"/camera/yard/frame.jpg?n="), "the camera's own page asks below its base:\n\(page)")
        XCTAssertTrue(page.contains("href=\"/camera/yard/history\""), page)

        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 7, "the attic was not watched, and the exit code says so")
    }

    /// Two cameras whose every frame is asked, on llama-server with two slots: with the server's
    /// slots (read from its /props), both are busy at once; with `--engine-parallel 1`, never.
    func testTwoCamerasKeepBothSlotsOfAServerBusyAndOneAtATimeWhenToldSo() throws {
        let models = Fixtures.root.appendingPathComponent("models/shapes-tiny").path
        let server = try LlamaServer(
            model: "\(models)/shapes-tiny-Q8_0.gguf", mmproj: "\(models)/shapes-tiny-mmproj-F16.gguf", parallel: 2, context: 2048)
        let photos = try TestMedia.photoFolder(in: dir)
        func busy() -> Int {
            let r = try? Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "2", "http://127.0.0.1:\(server.port)/slots"])
            let slots = (try? JSONSerialization.jsonObject(with: Data((r?.stdout ?? "").utf8)) as? [[String: Any]]) ?? []
            return slots.filter { $0["is_processing"] as? Bool == true }.count
        }
        for parallel in [nil, 1] {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
            p.arguments =
                [
                    "watch", "--camera", "door=\(photos)", "--camera", "yard=\(photos)", "--rules", "a green triangle=log", "--engine", server.url,
                    "--model", "shapes-tiny", "--photo-seconds", "0", "--no-sound", "--record", path("records-\(parallel ?? 0)"), "--seconds", "60",
                ] + (parallel.map { ["--engine-parallel", String($0)] } ?? [])
            p.environment = environment.merging(["XDG_RUNTIME_DIR": path("run"), "RUNTIME_DIRECTORY": ""]) { $1 }
            let journal = path("journal-\(parallel ?? 0).txt")
            FileManager.default.createFile(atPath: journal, contents: nil)
            p.standardError = FileHandle(forWritingAtPath: journal)
            try p.run()
            defer { if p.isRunning { p.terminate() } }
            let log = path("records-\(parallel ?? 0)/lookd-events.jsonl")
            func answered(_ camera: String) -> Int {
                ((try? EventLogFile.read(log)) ?? []).filter { $0["camera"] as? String == camera && $0["event"] as? String == "watch" }.count
            }
            XCTAssertTrue(Poll.until(within: 30) { answered("door") > 0 && answered("yard") > 0 }, "both cameras answer")
            var most = 0
            let start = Date()
            while Date().timeIntervalSince(start) < (parallel == nil ? 20 : 8) && !(parallel == nil && most == 2) { most = max(most, busy()) }
            if parallel == nil {
                XCTAssertEqual(most, 2, "both slots at work at once")
            } else {
                XCTAssertEqual(most, 1, "one question at a time")
            }
            kill(p.processIdentifier, SIGTERM)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0)
            let words = try String(contentsOfFile: journal, encoding: .utf8)
            XCTAssertEqual(words.contains("the server has 2 slots"), parallel == nil, words)
        }
    }

    /// An instance of the template unit with cameras (`/run/lookd-house/status-<camera>.json`):
    /// `lookd status` lists a line a camera, and `lookd status house` too.
    func testAnInstanceOfSeveralCamerasIsListedACameraALine() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let run = path("run")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Fixtures.lookd)
        p.arguments = [
            "watch", "--camera", "door=\(photos)", "--camera", "yard=\(photos)", "--rules", "a green triangle=log", "--model", "shapes-tiny",
            "--photo-seconds", "0.2", "--no-sound", "--record", path("records"), "--status", "\(run)/lookd-house/status.json", "--seconds", "60",
        ]
        p.environment = environment
        p.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try p.run()
        defer { if p.isRunning { p.terminate() } }
        let files = ["\(run)/lookd-house/status-door.json", "\(run)/lookd-house/status-yard.json"]
        XCTAssertTrue(Poll.until(within: 30) { files.allSatisfy { FileManager.default.fileExists(atPath: $0) } }, "a status file a camera")
        let env = ["LOOKD_RUN_DIR": run]
        for words in [["status"], ["status", "house"]] {
            let r = try Subprocess.run(Fixtures.lookd, words, environment: env)
            XCTAssertEqual(r.status, 0, r.stderr)
            XCTAssertTrue(r.stdout.contains("lookd@house camera door: watching · \(photos)"), r.stdout)
            XCTAssertTrue(r.stdout.contains("lookd@house camera yard: watching · \(photos)"), r.stdout)
        }
        let history = try Subprocess.run(Fixtures.lookd, ["history", "house", "--json"], environment: env)
        XCTAssertEqual(history.status, 0, "the cameras' one history, found by the instance's name: \(history.stderr)")
        kill(p.processIdentifier, SIGTERM)
        p.waitUntilExit()
    }
}

import Foundation
import TestSupport
import XCTest

/// One file for everything: the rules file's `settings:` beside `rules:`, flags over the file,
/// `lookd check` showing each setting in force and where it came from, options that need another
/// refused, and a reload that changes a live setting and names one that needs a restart.
final class SettingsFileTests: XCTestCase {
    private var dir: URL!
    override func setUpWithError() throws { dir = try Fixtures.scratch() }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    private func write(_ text: String, to name: String) throws -> String {
        let file = path(name)
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// A cat that comes and goes every other frame.
    private func script() throws -> String {
        try write((0..<400).map { $0 % 2 == 0 ? "1. Yes" : "1. No" }.joined(separator: "\n") + "\n", to: "script.txt")
    }

    func testTheWatchRunsFromTheFileAloneAndAFlagOverridesIt() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let rules = try write(
            """
            settings:
              source: \(photos)
              model: script:\(try script())
              no-sound: true
              photo-seconds: 0
              seconds: 600
              log: \(path("events.jsonl"))
              record: \(dir.path)
            rules:
              - when: a cat
                log: true

            """, to: "rules.yaml")
        let r = try Subprocess.run(Fixtures.lookd, ["watch", "--rules", rules, "--seconds", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("(seconds)"), "the flag's 1 s, not the file's 600: \(r.stderr)")
        let kinds = try EventLogFile.read(path("events.jsonl")).compactMap { $0["event"] as? String }
        XCTAssertTrue(kinds.contains("fire"), "\(kinds)")
    }

    /// A relative path in a rules file's settings: is taken from the file's folder, wherever lookd runs.
    func testRelativePathsInTheFileAreTakenFromItsFolder() throws {
        let folder = dir.appendingPathComponent("etc").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let rules = folder + "/rules.yaml"
        try "settings:\n  record: records\n  snapshots: snaps\nrules:\n  - when: a cat\n    log: true\n"
            .write(toFile: rules, atomically: true, encoding: .utf8)
        let r = try Subprocess.run(Fixtures.lookd, ["check", rules, "--status", "here.json"])
        XCTAssertEqual(r.status, 0, r.stderr)
        func line(_ name: String) -> String? {
            r.stdout.split(separator: "\n").first { $0.hasPrefix("  \(name) ") }.map { $0.split(separator: " ").joined(separator: " ") }
        }
        XCTAssertEqual(line("record"), "record \(folder)/records \(rules):2")
        XCTAssertEqual(line("snapshots"), "snapshots \(folder)/snaps \(rules):3")
        XCTAssertEqual(line("status"), "status here.json flag", "a flag's path stays the current folder's")

        // A model is a catalog id (or a server's name for it) as written, and a .gguf file from the folder.
        for (model, shown) in [("shapes-tiny", "shapes-tiny"), ("models/mine.gguf", "\(folder)/models/mine.gguf")] {
            try "settings:\n  model: \(model)\n  mmproj: models/mmproj.gguf\nrules:\n  - when: a cat\n    log: true\n"
                .write(toFile: rules, atomically: true, encoding: .utf8)
            let m = try Subprocess.run(Fixtures.lookd, ["check", rules])
            let found = m.stdout.split(separator: "\n").first { $0.hasPrefix("  model ") }.map { $0.split(separator: " ").joined(separator: " ") }
            XCTAssertEqual(found, "model \(shown) \(rules):2", m.stdout + m.stderr)
        }
    }

    func testCheckShowsEverySettingInForceAndWhereItCameFrom() throws {
        let rules = try write(
            "settings:\n  cooldown: 5\n  mqtt: mqtt://bob@127.0.0.1\nrules:\n  - when: a cat\n    log: true\n", to: "rules.yaml")
        let r = try Subprocess.run(
            Fixtures.lookd, ["check", rules, "--hold", "2", "--http", "127.0.0.1:8470", "--http-token", "s3cret-token"],
            environment: ["LOOKD_MQTT_PASSWORD": "hunter2"])
        XCTAssertEqual(r.status, 0, r.stderr)
        func line(_ name: String) -> String? {
            r.stdout.split(separator: "\n").first { $0.hasPrefix("  \(name) ") }.map { $0.split(separator: " ").joined(separator: " ") }
        }
        XCTAssertEqual(line("cooldown"), "cooldown 5 \(rules):2 live")
        XCTAssertEqual(line("hold"), "hold 2 flag live")
        XCTAssertEqual(line("size"), "size 448 default")
        XCTAssertEqual(line("mqtt"), "mqtt mqtt://bob@127.0.0.1:1883 \(rules):3")
        XCTAssertEqual(line("http-token"), "http-token *** flag")
        XCTAssertEqual(line("keep-snapshots"), "keep-snapshots 1000 default")
        XCTAssertFalse(r.stdout.contains("hunter2") || r.stdout.contains("s3cret-token"), r.stdout)
        // Every option `lookd watch --help` lists is shown, with its value.
        let help = try Subprocess.run(Fixtures.lookd, ["watch", "--help"])
        let options = help.stdout.matches(of: /(?m)^  --([a-z0-9-]+)/).map { String($0.1) }
        XCTAssertGreaterThan(options.count, 50)
        for name in options { XCTAssertNotNil(line(name), "--\(name) in lookd check") }
    }

    func testHelpGroupsEachOptionOnceWithItsTrueDefault() throws {
        let help = try Subprocess.run(Fixtures.lookd, ["watch", "--help"]).stdout
        let options = help.matches(of: /(?m)^  --([a-z0-9-]+)/).map { String($0.1) }
        XCTAssertEqual(options.count, Set(options).count, "each option once")
        XCTAssertTrue(
            help.contains(
                "  --keep-snapshots N|AGE\n                        how many snapshots stay (a count) or for how long (an age of at least 1m: 30m, 12h, 7d)\n"
                    + "                        (default 1000);"
            ), help)
        let service = try XCTUnwrap(help.components(separatedBy: "\nService:\n").last)
        XCTAssertFalse(service.contains("--truth"), "--truth is a record's, not the service's")
    }

    func testAnOptionWithoutWhatItNeedsIsRefusedNamingIt() throws {
        let photos = try TestMedia.photoFolder(in: dir)
        let base = ["watch", "--source", photos, "--rules", "a cat=log", "--model", "script:/dev/null", "--no-sound"]
        let cases: [([String], String)] = [
            (["--keep-snapshots", "5"], "--keep-snapshots goes with --snapshots"),
            (["--mqtt-queue", "5"], "--mqtt-queue goes with --mqtt"),
            (["--mqtt-discovery", "off"], "--mqtt-discovery goes with --mqtt"),
            (["--every", "2"], "--every goes with --pace frames"),
            (["--cell-words"], "--cell-words goes with --cells ask"),
            (["--engine-tries", "2"], "--engine-tries goes with --engine"),
            (["--http-token-file", "/dev/null"], "--http-token-file goes with --http"),
            (["--camera-size", "640"], "--camera-size goes with --source /dev/videoN (a camera)"),
            (["--pace", "frames"], "--pace goes with --source FILE (a video file)"),
        ]
        for (options, expected) in cases {
            let r = try Subprocess.run(Fixtures.lookd, base + options)
            XCTAssertEqual(r.status, 2, "\(options): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(expected), "\(options): \(r.stderr)")
        }
        let rules = try write("settings:\n  keep-snapshots: 5\nrules:\n  - when: a cat\n    log: true\n", to: "needs.yaml")
        let file = try Subprocess.run(Fixtures.lookd, ["check", rules])
        XCTAssertEqual(file.status, 2)
        XCTAssertTrue(file.stderr.contains("\(rules):2: keep-snapshots goes with --snapshots"), file.stderr)
        let video = try write("settings:\n  source: clip.mp4\n  photo-seconds: 2\nrules:\n  - when: a cat\n    log: true\n", to: "video.yaml")
        let folderOnly = try Subprocess.run(Fixtures.lookd, ["check", video])
        XCTAssertEqual(folderOnly.status, 2)
        XCTAssertTrue(folderOnly.stderr.contains("\(video):3: photo-seconds goes with --source DIR (a folder of photos)"), folderOnly.stderr)
        let unknown = try write("settings:\n  sauce: /dev/video0\nrules:\n  - when: a cat\n    log: true\n", to: "unknown.yaml")
        let named = try Subprocess.run(Fixtures.lookd, ["check", unknown])
        XCTAssertEqual(named.status, 2)
        XCTAssertTrue(named.stderr.contains("\(unknown):2: sauce is not a setting"), named.stderr)
    }

    func testAReloadChangesALiveSettingAndNamesOneThatNeedsARestart() throws {
        let clip = path("clip.mp4")
        try TestMedia.clip(clip, seconds: 30, fps: 10)
        let log = path("events.jsonl")
        let settings = "  source: \(clip)\n  model: script:\(try script())\n  no-sound: true\n  log: \(log)\n  record: \(dir.path)\n  gate: off\n"
        let rulesText = "rules:\n  - when: a cat\n    count: true\n"
        let rules = try write("settings:\n" + settings + "  cooldown: 0\n" + rulesText, to: "rules.yaml")
        let r = try Subprocess.run(Fixtures.lookd, ["watch", "--rules", rules]) { process in
            EventLogFile.waitForLines(log, containing: "\"shown\":\"×3\"")
            try? ("settings:\n" + settings + "  cooldown: 600\n  size: 320\n" + rulesText).write(toFile: rules, atomically: true, encoding: .utf8)
            kill(process.processIdentifier, SIGHUP)
            EventLogFile.waitForLines(log, containing: "\"action\":\"reloaded\"")
            EventLogFile.waitForLines(log, containing: "\"event\":\"watch\"", count: 40)
            kill(process.processIdentifier, SIGTERM)
        }
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stderr.contains("settings changed by the reload: cooldown"), r.stderr)
        XCTAssertTrue(r.stderr.contains("size changed in \(rules), but it needs a restart"), r.stderr)
        let events = try EventLogFile.read(log)
        let reloadedAt = try XCTUnwrap(events.firstIndex { $0["action"] as? String == "reloaded" })
        let fires = { (slice: ArraySlice<[String: Any]>) in slice.filter { $0["event"] as? String == "fire" }.count }
        let framesAfter = events[reloadedAt...].filter { $0["event"] as? String == "watch" }.count
        XCTAssertGreaterThanOrEqual(fires(events[..<reloadedAt]), 3, "cooldown 0: a fire every other frame")
        XCTAssertGreaterThanOrEqual(framesAfter, 6)
        XCTAssertLessThanOrEqual(fires(events[reloadedAt...]), 1, "cooldown 600 after the reload: \(framesAfter) frames")
    }
}

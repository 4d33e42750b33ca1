import Foundation
import TestFixtures
import TestSupport
import XCTest

/// lookd against a real Home Assistant core (the pinned 2024.2.5 from PyPI) and a real mosquitto, as
/// a Home Assistant user runs it, asserted through Home Assistant's own REST API: the device and its
/// entities, state histories across fires, an unreadable answer, an effect's hold and a reload, the
/// event entity's events, the image through Home Assistant's image proxy, a switch that turns a
/// rule off, a count reset, availability after SIGTERM and SIGKILL, no ghost after a restart with
/// other rules, and no warning from Home Assistant's MQTT integration.
final class HomeAssistantTests: XCTestCase {
    private var dir: URL!
    /// lookd's page, which Home Assistant links to (the device's page, the snapshots).
    private let page = LoopbackPort.free()
    override func setUpWithError() throws {
        // Not installed is a failure, not a skip: tools/test installs it, and a test that did not run
        // must not read as one that passed.
        guard HomeAssistant.installed else {
            throw NSError(
                domain: "HomeAssistantTests", code: 1,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "Home Assistant is not installed in .deps/home-assistant: run tools/install-home-assistant (tools/test does)"
                ])
        }
        dir = try Fixtures.scratch()
    }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
    private var log: String { path("events.jsonl") }
    private func lines(_ event: String) -> [[String: Any]] { ((try? EventLogFile.read(log)) ?? []).filter { $0["event"] as? String == event } }

    private func waitFor(_ what: String, _ seconds: Double = 30, _ check: () throws -> Bool) throws {
        if try Poll.until(within: seconds, every: 0.1, check) { return }
        throw NSError(domain: "HomeAssistantTests", code: 2, userInfo: [NSLocalizedDescriptionKey: "gave up waiting for \(what)"])
    }

    /// lookd watching a photo folder with the scripted engine, a frame every `!wait` of the script.
    /// Started with `--trigger`: MQTT is connected and discovery sent before the first frame, which
    /// waits until `go()` (once Home Assistant has set the device up).
    private func lookd(rules: String, script: [String], broker: Mosquitto) throws -> FixtureProcess {
        try? FileManager.default.removeItem(atPath: path("go"))
        try rules.write(toFile: path("rules.yaml"), atomically: true, encoding: .utf8)
        let photos = try TestMedia.photoFolder(in: dir)
        for folder in ["snapshots", "effects"] { try FileManager.default.createDirectory(atPath: path(folder), withIntermediateDirectories: true) }
        return try FixtureProcess(
            Fixtures.lookd,
            [
                "watch", "--source", photos, "--rules", path("rules.yaml"), "--model", "script:" + (try Fixtures.script(script, in: dir)),
                "--photo-seconds", "0", "--no-sound", "--cells", "none", "--record", dir.path, "--log", log, "--snapshots", path("snapshots"),
                "--effects", path("effects"), "--state", path("lookd-state.json"), "--mqtt", broker.url, "--name", "hatest",
                "--seconds", "300", "--trigger", path("go"), "--http", "127.0.0.1:\(page)",
            ])
    }

    private func go() { XCTAssertTrue(FileManager.default.createFile(atPath: path("go"), contents: nil), "the trigger file") }

    private func isoDate(_ text: Any?) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        guard let text = text as? String else { return nil }
        return f.date(from: text) ?? ISO8601DateFormatter().date(from: text)
    }

    /// The states in a history, with repeats of the same state folded.
    private func states(_ history: [[String: Any]]) -> [String] {
        var out: [String] = []
        for s in history.compactMap({ $0["state"] as? String }) where out.last != s { out.append(s) }
        return out
    }

    func testARealHomeAssistantSeesTheDeviceFollowsFiresSwitchesRulesAndKeepsNoGhosts() throws {
        let broker = try Mosquitto()
        let ha = try HomeAssistant(mqttPort: broker.port)
        let (cat, dog, fox) = ("binary_sensor.lookd_hatest_a_cat", "binary_sensor.lookd_hatest_a_dog", "switch.lookd_hatest_a_fox_watched")
        let started = Date()

        // Run 1: the cat fires on frame 5, the dog's effect on frame 6 (a 3 s hold), the cat's answer
        // cannot be read on frame 7; then SIGTERM. The frames begin once Home Assistant has the device.
        let rules = """
            rules:
              - when: a cat
                count: true
                device_class: motion
              - when: a dog
                effect: ripple
              - when: a fox
                log: true
                enabled: false
            """
        let no = "!wait 0.3 1. No\\n2. No"
        var p = try lookd(
            rules: rules, script: [no, no, no, no, "!wait 0.3 1. Yes\\n2. No", "!wait 0.3 1. No\\n2. Yes", "!wait 0.3 1. Perhaps\\n2. No", no],
            broker: broker)
        try waitFor("Home Assistant to set the new device up") { try ha.state(dog)?["state"] as? String == "unknown" }
        go()
        try waitFor("the run's fires and the frames after them") { lines("watch").count >= 10 }
        p.stop()
        try waitFor("the device to be unavailable after SIGTERM") { try ha.state(cat)?["state"] as? String == "unavailable" }

        // The device and its entities, as Home Assistant's registry has them.
        let device = "device_id('\(cat)')"
        XCTAssertEqual(try ha.template("{{ device_attr(\(device), 'name') }}"), "lookd hatest")
        XCTAssertEqual(try ha.template("{{ device_attr(\(device), 'sw_version') }}"), "lookd 0.1.0")
        XCTAssertEqual(try ha.template("{{ device_attr(\(device), 'configuration_url') }}"), "http://127.0.0.1:\(page)")
        let entities = try ha.template("{{ device_entities(\(device)) | sort | join(' ') }}").split(separator: " ").map(String.init)
        XCTAssertEqual(
            entities,
            [
                cat, dog, "button.lookd_hatest_a_cat_reset_count", "event.lookd_hatest_a_cat_fired", "event.lookd_hatest_a_dog_fired",
                "image.lookd_hatest_a_cat_last_fire", "image.lookd_hatest_a_dog_last_fire", "sensor.lookd_hatest_a_cat_count",
                "switch.lookd_hatest_a_cat_watched", "switch.lookd_hatest_a_dog_watched", fox, "switch.lookd_hatest_watching",
            ].sorted())
        XCTAssertEqual(try ha.state(cat)?["attributes"].flatMap { ($0 as? [String: Any])?["device_class"] as? String }, "motion")
        XCTAssertEqual(try ha.state(dog)?["attributes"].flatMap { ($0 as? [String: Any])?["device_class"] as? String }, "occupancy")

        // State histories: the cat on at its fire, unknown for the unreadable answer, unavailable at
        // the stop; the dog on at its fire, well before its hold ended.
        XCTAssertEqual(Array(states(try ha.history(cat, since: started)).suffix(5)), ["off", "on", "off", "unknown", "off", "unavailable"].suffix(5))
        XCTAssertTrue(states(try ha.history(cat, since: started)).contains("on"))
        let fires = lines("fire")
        XCTAssertEqual(fires.map { $0["condition"] as? String }, ["a cat", "a dog"])
        let dogOn = try XCTUnwrap(try ha.history(dog, since: started).first { $0["state"] as? String == "on" })
        let dogFire = try XCTUnwrap(fires.first { $0["condition"] as? String == "a dog" })
        let dogFired = try XCTUnwrap(isoDate(dogFire["t"]))
        let dogLatency = try XCTUnwrap(isoDate(dogOn["last_changed"])).timeIntervalSince(dogFired)
        XCTAssertLessThan(dogLatency, 2, "the effect rule's state is not held back by its 3 s hold")

        // The event entities: one `fired` event a fire, with the fire's fields.
        let catEvents = try ha.history("event.lookd_hatest_a_cat_fired", since: started).filter {
            ($0["attributes"] as? [String: Any])?["event_type"] as? String == "fired"
        }
        XCTAssertEqual(catEvents.count, 1)
        XCTAssertEqual((catEvents.first?["attributes"] as? [String: Any])?["frame"] as? Int, fires[0]["frame"] as? Int)
        let catFired = try XCTUnwrap(isoDate(fires[0]["t"]))
        let catLatency = try XCTUnwrap(isoDate(catEvents.first?["state"])).timeIntervalSince(catFired)
        let dogEvent = try XCTUnwrap(
            try ha.history("event.lookd_hatest_a_dog_fired", since: started).first {
                ($0["attributes"] as? [String: Any])?["event_type"] as? String == "fired"
            })
        let dogEventLatency = try XCTUnwrap(isoDate(dogEvent["state"])).timeIntervalSince(dogFired)
        print(
            "MEASURE fire→Home Assistant: plain rule's event \(Int(catLatency * 1000)) ms; effect rule's event "
                + "\(Int(dogEventLatency * 1000)) ms, its state on \(Int(dogLatency * 1000)) ms")

        // The image through Home Assistant's own image proxy: the snapshot, byte for byte.
        let snapshot = try XCTUnwrap(fires[0]["snapshot"] as? String)
        XCTAssertEqual(try ha.call("/api/image_proxy/image.lookd_hatest_a_cat_last_fire"), FileManager.default.contents(atPath: snapshot))
        XCTAssertEqual(try ha.state("sensor.lookd_hatest_a_cat_count")?["state"] as? String, "unavailable")

        // Run 2: the cat is switched off from Home Assistant before its yes comes (frame 21 on), and
        // fires only once switched on again; the count is reset from Home Assistant's button.
        let yes = "!wait 0.3 1. Yes\\n2. Yes"
        p = try lookd(rules: rules, script: Array(repeating: no, count: 20) + [yes], broker: broker)
        try waitFor("the switch to be on") { try ha.state("switch.lookd_hatest_a_cat_watched")?["state"] as? String == "on" }
        go()
        XCTAssertEqual(try ha.state("sensor.lookd_hatest_a_cat_count")?["state"] as? String, "1", "the count kept from run 1")
        XCTAssertEqual(try ha.state(fox)?["state"] as? String, "off", "a rule written enabled: false is a switch that is off")
        try ha.service("switch/turn_off", "switch.lookd_hatest_a_cat_watched")
        try ha.service("button/press", "button.lookd_hatest_a_cat_reset_count")
        try waitFor("the commands") { lines("command").count >= 2 }
        XCTAssertEqual(lines("command").map { $0["action"] as? String }, ["switch_off", "reset_count"])
        try waitFor("the count to be 0 in Home Assistant") { try ha.state("sensor.lookd_hatest_a_cat_count")?["state"] as? String == "0" }
        try waitFor("the dog's fire while the cat is off") { lines("fire").count >= 3 }
        usleep(1_000_000)
        XCTAssertEqual(lines("fire").map { $0["condition"] as? String }, ["a cat", "a dog", "a dog"], "nothing fires for the cat while it is off")
        XCTAssertEqual(try ha.state("switch.lookd_hatest_a_cat_watched")?["state"] as? String, "off")
        try ha.service("switch/turn_on", "switch.lookd_hatest_a_cat_watched")
        try waitFor("the cat's fire once switched on") { lines("fire").count >= 4 }
        XCTAssertEqual(lines("fire").last?["condition"] as? String, "a cat")
        try waitFor("the count to be 1 again") { try ha.state("sensor.lookd_hatest_a_cat_count")?["state"] as? String == "1" }
        // The device's own switch pauses the whole watch, and resumes it.
        XCTAssertEqual(try ha.state("switch.lookd_hatest_watching")?["state"] as? String, "on")
        try ha.service("switch/turn_off", "switch.lookd_hatest_watching")
        try waitFor("the pause") { lines("command").last?["action"] as? String == "pause" }
        try waitFor("Home Assistant to show it paused") { try ha.state("switch.lookd_hatest_watching")?["state"] as? String == "off" }
        try ha.service("switch/turn_on", "switch.lookd_hatest_watching")
        try waitFor("the resume") { lines("command").last?["action"] as? String == "resume" }
        try waitFor("Home Assistant to show it watching") { try ha.state("switch.lookd_hatest_watching")?["state"] as? String == "on" }
        let last = try XCTUnwrap(lines("fire").last?["snapshot"] as? String)
        let link = try ha.state(cat)?["attributes"].flatMap { ($0 as? [String: Any])?["snapshot"] as? String }
        XCTAssertEqual(link, "http://127.0.0.1:\(page)/snapshots/" + (last as NSString).lastPathComponent, "a link a phone can open")
        // What Home Assistant's own device page shows now, for the README (docs/home-assistant.png).
        let shot = path("home-assistant.png")
        let id = try ha.template("{{ \(device) }}")
        let r = try Subprocess.run(
            HomeAssistant.venv.appendingPathComponent("bin/python").path,
            [
                Fixtures.root.appendingPathComponent("Tests/Fixtures/screenshot.py").path, ha.url + "/local/open.html#/config/devices/device/" + id,
                shot, "8", "1280", "1000",
            ])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertGreaterThan((try? FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0, 40_000, "a page drawn, not a spinner")
        print("SCREENSHOT Home Assistant's device page: \(shot)")
        p.stop(SIGKILL)
        try waitFor("the last will to make the device unavailable") { try ha.state(cat)?["state"] as? String == "unavailable" }

        // Run 3: other rules. The dog's and the fox's entities are gone from Home Assistant at the
        // start, as after a reload; a reload then adds an owl.
        p = try lookd(rules: "rules:\n  - when: a cat\n    count: true\n", script: [no], broker: broker)
        go()
        try waitFor("the cat to be back") { try ha.state("switch.lookd_hatest_a_cat_watched")?["state"] as? String == "on" }
        try waitFor("the dog's entities to go") { try ha.state(dog) == nil && ha.state("event.lookd_hatest_a_dog_fired") == nil }
        XCTAssertNil(try ha.state(fox))
        XCTAssertNil(try ha.state("image.lookd_hatest_a_dog_last_fire"))
        try "rules:\n  - when: a cat\n    count: true\n  - when: an owl\n    log: true\n".write(
            toFile: path("rules.yaml"), atomically: true, encoding: .utf8)
        kill(p.pid, SIGHUP)
        try waitFor("the owl") { try ha.state("binary_sensor.lookd_hatest_an_owl") != nil }
        p.stop()

        // Home Assistant's MQTT integration said nothing wrong about any of it.
        let warnings = ha.log.split(separator: "\n").filter { ($0.contains("WARNING") || $0.contains("ERROR")) && $0.contains("components.mqtt") }
        XCTAssertEqual(warnings, [], "Home Assistant's MQTT integration warned")
    }

    /// A fire's clip reaches Home Assistant as a `clip` event on the rule's event entity, after its
    /// `fired` event, with the clip's link on lookd's page; the link serves the clip.
    func testHomeAssistantGetsAFiresClipAsAnEventWithItsLink() throws {
        let broker = try Mosquitto()
        let ha = try HomeAssistant(mqttPort: broker.port)
        let video = path("in.mp4")
        try TestMedia.clip(video, seconds: 30, fps: 30, width: 640, height: 480)
        let no = "!wait 0.5 1. No"
        let script = try Fixtures.script([no, no, no, no, "!wait 0.5 1. Yes", no], in: dir)
        let p = try FixtureProcess(
            Fixtures.lookd,
            [
                "watch", "--source", video, "--rules", "a cat=log", "--model", "script:" + script, "--no-sound", "--record", dir.path,
                "--log", log, "--state", "off", "--mqtt", broker.url, "--name", "hatest", "--seconds", "120", "--trigger", path("go"),
                "--http", "127.0.0.1:\(page)", "--clips", "on", "--pre-roll", "1", "--post-roll", "1",
            ])
        defer { p.stop() }
        let event = "event.lookd_hatest_a_cat_fired"
        try waitFor("Home Assistant to set the new device up") { try ha.state(event) != nil }
        let started = Date()
        go()
        try waitFor("the clip") { !lines("clip").isEmpty }
        let clip = try XCTUnwrap(lines("clip").first)
        let file = try XCTUnwrap(clip["clip"] as? String)
        var clipEvent: [String: Any]?
        try waitFor("Home Assistant's clip event") {
            clipEvent = try ha.history(event, since: started).compactMap { $0["attributes"] as? [String: Any] }.first {
                $0["event_type"] as? String == "clip"
            }
            return clipEvent != nil
        }
        let types = try ha.history(event, since: started).compactMap { ($0["attributes"] as? [String: Any])?["event_type"] as? String }
        XCTAssertEqual(types.filter { $0 != "" }.reduce(into: [String]()) { if $1 != $0.last { $0.append($1) } }, ["fired", "clip"])
        let link = try XCTUnwrap(clipEvent?["clip"] as? String, "\(clipEvent ?? [:])")
        XCTAssertEqual(link, "http://127.0.0.1:\(page)/clips/" + (file as NSString).lastPathComponent)
        XCTAssertEqual(clipEvent?["duration_s"] as? Double ?? -1, clip["duration_s"] as? Double ?? 0, accuracy: 0.001)
        XCTAssertEqual(try Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "10", "-o", path("served.mp4"), link]).status, 0)
        let served = FileManager.default.contents(atPath: path("served.mp4"))
        XCTAssertEqual(served, FileManager.default.contents(atPath: file), "the link serves the clip")
    }
}

import Foundation
import LookCore
import Settings
import TestFixtures
import TestSupport
import XCTest

@testable import House

/// The house in-process: `HouseRun`'s steps (made, model loaded, cameras opened, kept until every
/// camera ended) with the scripted model over photo folders, on a manual clock that the cameras'
/// own waits move (a second of it in 10 ms, so the thread that keeps the house, which waits on real
/// time, keeps up). What the test does meanwhile (a reload, a switch, a stop, a look at the page) it
/// does at a time of that clock (`ManualClock.after`).
final class HouseTests: XCTestCase {
    private var dir: URL!
    private var photos: String!
    private let clock = ManualClock(pace: 0.01)
    override func setUpWithError() throws {
        dir = try Fixtures.scratch()
        photos = try TestMedia.photoFolder(in: dir)
    }
    private func path(_ name: String) -> String { dir.appendingPathComponent(name).path }

    /// A house of the rules file `yaml` (its cameras in `settings: cameras:`), the flags of a watch
    /// of 20 s of the clock, a photo a second, answered by `answers`, each answer taking 0.5 s of
    /// the clock (the only thing that moves it: a photo folder gives its newest photo at once).
    private func house(
        _ yaml: String, answers: [String] = ["1. Yes\\n2. No"], flags: [String: String] = [:], clock: (any Clock)? = nil
    ) throws -> HouseRun {
        try yaml.write(toFile: path("rules.yaml"), atomically: true, encoding: .utf8)
        let script = try Fixtures.script(answers.map { "!wait 0.5 " + $0 }, in: dir)
        var given = [
            "rules": path("rules.yaml"), "model": "script:" + script, "record": path("records"), "photo-seconds": "1", "seconds": "20",
            "no-sound": "true", "state": "off", "status": path("status.json"),
        ]
        given.merge(flags) { $1 }
        let plan = CameraPlan(spec: path("rules.yaml"), flags: given.mapValues { GivenSetting($0, from: .flag) })
        return try HouseRun(plan, try plan.read(), version: "test", clock: clock ?? self.clock)
    }

    /// Runs the house's steps to its end: how each camera ended (those not opened first).
    @discardableResult
    private func watch(_ run: HouseRun) throws -> [HouseWatch.Ended] {
        defer { run.close() }
        let model = try run.loadModel(words: words)
        let unopened = try run.open(model: model)
        run.keep(model: model)
        return unopened + run.house.endings
    }

    private let words = HouseWatch.Words(interrupted: 130, terminated: 0, model: { "\($0)" })

    private func cameras(_ cameras: [String: String]) -> String {
        "settings:\n  cameras:\n" + cameras.sorted { $0.key < $1.key }.map { "    \($0.key): \($0.value)\n" }.joined()
    }

    /// A line's time, in seconds of the clock since the watch began.
    private func seconds(_ line: [String: Any]) throws -> Double {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let t = try XCTUnwrap(formatter.date(from: try XCTUnwrap(line["t"] as? String)))
        return t.timeIntervalSince(try XCTUnwrap(formatter.date(from: "2026-12-01T12:00:00.000Z")))
    }

    /// The event log's lines of `camera` whose event is `event`.
    private func lines(_ event: String, of camera: String) throws -> [[String: Any]] {
        try EventLogFile.read(path("records/lookd-events.jsonl")).filter { $0["event"] as? String == event && $0["camera"] as? String == camera }
    }

    func testTwoCamerasTakeTurnsWithTheOneModelEachAskingItsOwnRules() throws {
        let run = try house(
            cameras(["door": photos, "yard": photos])
                + "rules:\n  - when: a test card\n    log: true\n  - when: a dog\n    cameras: [yard]\n    log: true\n",
            answers: ["1. Yes\\n2. Yes"])
        XCTAssertNotNil(run.house.turns, "named cameras take turns with the model")
        let ended = try watch(run)
        XCTAssertEqual(Set(ended.map(\.camera.name)), ["door", "yard"])
        for end in ended { XCTAssertEqual(try end.result.get().reason, "seconds", "\(end.camera) ran its 20 s") }
        let (door, yard) = (try lines("watch", of: "door"), try lines("watch", of: "yard"))
        XCTAssertGreaterThanOrEqual(door.count, 5, "a photo a second for 20 s, shared")
        XCTAssertGreaterThanOrEqual(yard.count, 5)
        XCTAssertLessThanOrEqual(max(door.count, yard.count), 2 * min(door.count, yard.count) + 1, "neither camera starves the other")
        XCTAssertEqual(Set(door.compactMap { ($0["answers"] as? [String])?.count }), [1], "the door asks the test card only")
        XCTAssertEqual(Set(yard.compactMap { ($0["answers"] as? [String])?.count }), [2], "the yard asks both")
        XCTAssertEqual(try lines("fire", of: "door").compactMap { $0["condition"] as? String }, ["a test card"])
        XCTAssertEqual(Set(try lines("fire", of: "yard").compactMap { $0["condition"] as? String }), ["a test card", "a dog"])
    }

    func testAReloadAddsRemovesAndReopensCamerasAndTheOthersGoOn() throws {
        let rules = "rules:\n  - when: a test card\n    log: true\n"
        let run = try house(cameras(["door": photos, "yard": photos, "porch": photos]) + rules)
        // At 5 s of the clock the file drops the yard, adds the drive and gives the door a setting of its own.
        let changed =
            "settings:\n  cameras:\n    door:\n      source: \(photos!)\n      gate-threshold: 0.05\n    drive: \(photos!)\n    porch: \(photos!)\n"
        let (file, words) = (path("rules.yaml"), words)
        clock.after(5) {
            try? (changed + rules).write(toFile: file, atomically: true, encoding: .utf8)
            run.signal(SIGHUP, words: words)
        }
        let ended = try watch(run)
        XCTAssertEqual(ended.map(\.camera.name).sorted(), ["door", "door", "drive", "porch", "yard"], "the door's old run and its new one")
        XCTAssertEqual(try lines("start", of: "door").count, 2, "the door was reopened: a new run")
        XCTAssertEqual(try lines("start", of: "porch").count, 1, "the porch, unchanged, went on")
        XCTAssertEqual(try lines("start", of: "drive").count, 1)
        XCTAssertEqual(try lines("stop", of: "yard").first?["reason"] as? String, "reload: the camera is no longer in cameras:")
        XCTAssertFalse(try lines("watch", of: "drive").isEmpty, "the camera added answers")
        let reloaded = try XCTUnwrap(try lines("stop", of: "yard").first.map(seconds))
        XCTAssertEqual(reloaded, 5, accuracy: 2, "the reload was taken when it was asked for")
        let porch = try lines("watch", of: "porch").map(seconds)
        XCTAssertTrue(porch.contains { $0 < reloaded } && porch.contains { $0 > reloaded + 5 }, "the porch answered through the reload: \(porch)")
        XCTAssertEqual(run.house.watching.count, 0, "every camera ended")
    }

    func testAPausedCameraAsksNothingAndTheOthersHaveTheModel() throws {
        // At 5 s, Home Assistant's switch for the door (its MQTT command topic) turns it off.
        let broker = try Mosquitto()
        let run = try house(
            cameras(["door": photos, "yard": photos]) + "rules:\n  - when: a test card\n    log: true\n",
            flags: ["mqtt": broker.url, "name": "house"])
        let port = broker.port
        clock.after(5) {
            _ = try? Subprocess.run(
                "/usr/bin/mosquitto_pub", ["-p", String(port), "-h", "127.0.0.1", "-t", "lookd/house-door/watching/set", "-m", "OFF"])
        }
        try watch(run)
        let door = try lines("watch", of: "door").map(seconds)
        let yard = try lines("watch", of: "yard").map(seconds)
        XCTAssertFalse(door.isEmpty)
        XCTAssertLessThan(try XCTUnwrap(door.max()), 8, "a paused camera asks the model nothing: \(door)")
        XCTAssertGreaterThan(try XCTUnwrap(yard.max()), 15, "the yard goes on")
        XCTAssertGreaterThan(yard.filter { $0 > 8 }.count, door.filter { $0 < 5 }.count, "and has the model to itself")
        let status = try XCTUnwrap(
            JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path("status-door.json")))) as? [String: Any])
        XCTAssertEqual(status["paused"] as? Bool, true)
    }

    func testACameraNotOpenedOrWhoseSourceEndsLeavesTheOthersWatching() throws {
        let clip = path("short.mp4")
        try TestMedia.clip(clip, seconds: 5, fps: 5)
        // The yard's clip gives a frame of each of its 5 seconds in turn (its own pace), and ends.
        let yard = "    yard:\n      source: \(clip)\n      pace: frames\n"
        let run = try house(cameras(["door": photos, "attic": path("no-such")]) + yard + "rules:\n  - when: a test card\n    log: true\n")
        let ended = try watch(run)
        let attic = try XCTUnwrap(ended.first { $0.camera.name == "attic" })
        guard case .failure(.notOpened(let said)) = attic.result else { return XCTFail("\(attic.result)") }
        XCTAssertTrue(said.contains("the camera attic was not watched"), said)
        XCTAssertEqual(try ended.first { $0.camera.name == "yard" }?.result.get().reason, "end of source", "the yard's clip ended")
        XCTAssertEqual(try ended.first { $0.camera.name == "door" }?.result.get().reason, "seconds", "the door watched on to its end")
        XCTAssertEqual(try lines("watch", of: "yard").count, 5, "a frame of each second of the yard's clip")
        let yardEnd = try XCTUnwrap(try lines("stop", of: "yard").first.map(seconds))
        XCTAssertTrue(try lines("watch", of: "door").map(seconds).contains { $0 > yardEnd + 5 }, "the door answered after the yard ended")
    }

    func testAStopEndsEveryCameraAfterItsFrameAndEachLogEndsWithItsStopAndDone() throws {
        let run = try house(cameras(["door": photos, "yard": photos]) + "rules:\n  - when: a test card\n    log: true\n", flags: ["seconds": "600"])
        let words = words
        clock.after(5) { run.signal(SIGTERM, words: words) }
        let ended = try watch(run)
        XCTAssertEqual(Set(ended.map(\.camera.name)), ["door", "yard"])
        for end in ended { XCTAssertEqual(try end.result.get().reason, "SIGTERM", "\(end.camera)") }
        let log = try EventLogFile.read(path("records/lookd-events.jsonl"))
        for camera in ["door", "yard"] {
            let own = log.filter { $0["camera"] as? String == camera }.compactMap { $0["event"] as? String }
            XCTAssertEqual(own.first, "start")
            XCTAssertEqual(Array(own.suffix(2)), ["stop", "done"], "\(camera): its frame, then its stop and its record")
            XCTAssertEqual(try XCTUnwrap(try lines("stop", of: camera).first.map(seconds)), 5, accuracy: 2, "stopped after its frame")
        }
    }

    func testTheHousePageHasATileACameraAndStopsWithTheHouse() throws {
        let port = LoopbackPort.free()
        let run = try house(
            cameras(["door": photos, "yard": photos, "attic": path("no-such")]) + "rules:\n  - when: a test card\n    log: true\n",
            flags: ["http": "127.0.0.1:\(port)"])
        let seen = CollectedLines()
        clock.after(5) {
            let r = try? Subprocess.run("/usr/bin/curl", ["-s", "--max-time", "10", "http://127.0.0.1:\(port)/api/cameras"])
            seen.add(r?.stdout ?? "")
        }
        try watch(run)
        let tiles = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try XCTUnwrap(seen.all.first).utf8)) as? [[String: Any]])
        let byName = Dictionary(tiles.map { ($0["camera"] as? String ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(Set(byName.keys), ["attic", "door", "yard"])
        XCTAssertEqual(byName["door"]?["page"] as? String, "/camera/door/")
        XCTAssertTrue((byName["attic"]?["not_watched"] as? String)?.contains("no-such") == true, "\(byName["attic"] ?? [:])")
        XCTAssertTrue(byName["yard"]?["status"] is [String: Any], "a watched camera's tile has its status")
        XCTAssertFalse(LoopbackPort.accepts(port), "the page stopped with the house")
    }

    /// A camera lost while the house watches: the yard's stream (ffmpeg sending H.264 over UDP on
    /// loopback) stops once the yard has answered; the yard says it is lost and tries again with its
    /// backoff, and the door watches on. A stream's frames come in real time, so this case runs on
    /// the real clock.
    func testALostCameraTriesAgainAndTheOthersWatchOn() throws {
        let port = LoopbackPort.free()
        let server = try TestMedia.udpStream(port: port)
        defer { if server.isRunning { server.terminate() } }
        let run = try house(
            cameras(["door": photos, "yard": "udp://127.0.0.1:\(port)"]) + "rules:\n  - when: a test card\n    log: true\n",
            answers: ["1. Yes"], flags: ["seconds": "600", "photo-seconds": "0.2"], clock: MonotonicClock())
        let log = path("records/lookd-events.jsonl")
        let words = words
        let watcher = Thread {
            func lines() -> [[String: Any]] { (try? EventLogFile.read(log)) ?? [] }
            func answers(_ camera: String, in lines: ArraySlice<[String: Any]>) -> Int {
                lines.filter { $0["event"] as? String == "watch" && $0["camera"] as? String == camera }.count
            }
            // The yard answers, then its stream stops; once it is lost and the door has answered
            // since, the house is stopped.
            Poll.until(within: 30) { answers("yard", in: lines()[...]) >= 2 }
            server.terminate()
            Poll.until(within: 40) {
                let all = lines()
                guard let lost = all.firstIndex(where: { ($0["event"] as? String)?.hasSuffix("_lost") == true }) else { return false }
                return answers("door", in: all[lost...]) >= 3
            }
            run.signal(SIGTERM, words: words)
        }
        watcher.start()
        let ended = try watch(run)
        let lost = try XCTUnwrap(try EventLogFile.read(log).first { ($0["event"] as? String)?.hasSuffix("_lost") == true }, "the yard is lost")
        XCTAssertEqual(lost["camera"] as? String, "yard")
        XCTAssertEqual(
            lost["reason"] as? String, "the stream sent nothing for 10 s", "saying why (its data stopped; none came that failed to decode)")
        XCTAssertGreaterThan(lost["retry_s"] as? Double ?? 0, 0, "and tries again with its backoff")
        XCTAssertGreaterThanOrEqual(try lines("watch", of: "yard").count, 2, "the yard answered before it was lost")
        let lostAt = try seconds(lost)
        XCTAssertGreaterThanOrEqual(try lines("watch", of: "door").map(seconds).filter { $0 >= lostAt }.count, 3, "the door watched on")
        XCTAssertEqual(Set(ended.map(\.camera.name)), ["door", "yard"])
        for end in ended { XCTAssertEqual(try end.result.get().reason, "SIGTERM", "\(end.camera) ended at the stop") }
    }
}

import Foundation
import LookCore
import Records
import Rules
import TestFixtures
import TestSupport
import Watch
import XCTest

@testable import Outputs

/// Commands from Home Assistant's side of a real mosquitto: a rule's switch, a count's reset button,
/// malformed commands, and Home Assistant's restart; what they change is kept across a restart.
final class MQTTCommandTests: XCTestCase {
    private func publish(_ broker: Mosquitto, _ topic: String, _ payload: String, retain: Bool = false) throws {
        let r = try Subprocess.run(
            "/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(broker.port), "-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : []))
        XCTAssertEqual(r.status, 0)
    }

    /// Waits (a bounded while) for the output's connection, and for its subscriptions to be in place:
    /// the broker has logged its last (Home Assistant's status), the `subscribed + 1`th on this broker.
    private func connected(_ mqtt: MQTTOutput, _ broker: Mosquitto, after subscribed: Int) {
        Poll.until(within: 10, every: 0.01) { mqtt.state.connected }
        broker.waitForSubscription(to: "homeassistant/status", count: subscribed + 1)
    }

    func testASwitchedOffRuleIsNotAskedAResetCountStartsAgainAndBothAreKept() throws {
        let broker = try Mosquitto()
        let dir = try Fixtures.scratch()
        let (cat, dog) = (HomeAssistantDiscovery.id("a cat"), HomeAssistantDiscovery.id("a dog"))
        func watch(_ answers: [String], commands: [Int: [(String, String)]]) throws -> ([[String: Any]], WatchEnding) {
            var watch = InProcessWatch(rules: "a cat=count|a dog=log", in: dir)
            watch.config.statePath = dir.appendingPathComponent("lookd-state.json").path
            let mqtt = MQTTOutput(
                broker: try MQTTBroker.parse(broker.url).get(), name: "cmd", discoveryPrefix: "homeassistant", clock: MonotonicClock())
            let subscribed = broker.subscriptions(to: "homeassistant/status")
            let driver = OnFrame { frame in
                if frame.index == 1 { self.connected(mqtt, broker, after: subscribed) }
                guard let list = commands[frame.index] else { return }
                for (topic, payload) in list { try? self.publish(broker, topic, payload) }
                usleep(300_000) // the commands reach lookd before the next frame
            }
            let ending = try watch.run(answers: answers, frames: answers.count, outputs: [mqtt, driver])
            // The event log is the folder's, shared by the runs: this run's lines are those after its start.
            let lines = watch.events
            let start = lines.lastIndex { $0["event"] as? String == "start" } ?? 0
            return (Array(lines[start...]), ending)
        }
        // Frame 1: both fire (the cat counts 1). The cat is switched off after frame 2: frames 3-5
        // ask only the dog (its answer is line 1 of a one-rule prompt), and it fires on frame 4.
        // Switched on after frame 5, the cat fires on frame 6 (count 2).
        let (first, ending) = try watch(
            ["1. Yes\\n2. Yes", "1. No\\n2. No", "1. No", "1. Yes", "1. No", "1. Yes\\n2. No", "1. No\\n2. No"],
            commands: [
                2: [("lookd/cmd/rule/\(cat)/set", "OFF")],
                // An ON padded past the payload bound is dropped by its size, unread (the cat stays off).
                3: [
                    ("lookd/cmd/rule/\(cat)/set", "maybe"), ("lookd/cmd/rule/nosuchrule_00000000/set", "ON"),
                    ("lookd/cmd/rule/\(cat)/set", "ON" + String(repeating: " ", count: 40_000)),
                ],
                5: [("lookd/cmd/rule/\(cat)/set", "ON")],
            ])
        let fires: [(Int, String)] = first.filter { $0["event"] as? String == "fire" }.map {
            ($0["frame"] as? Int ?? 0, $0["condition"] as? String ?? "")
        }
        XCTAssertEqual(fires.map { $0.0 }, [1, 1, 4, 6], "\(fires)")
        XCTAssertEqual(fires.map { $0.1 }, ["a cat", "a dog", "a dog", "a cat"])
        XCTAssertEqual(ending.fires, 4)
        let commands = first.filter { $0["event"] as? String == "command" }
        XCTAssertEqual(commands.map { $0["action"] as? String }, ["switch_off", "switch_on"], "malformed commands are not commands")
        // Frames 3-5 asked only the dog: the cat is inactive in their watch lines.
        let inactive = first.filter { $0["event"] as? String == "watch" }.map { ($0["inactive"] as? [Int]) ?? [] }
        XCTAssertEqual(inactive, [[], [], [1], [1], [1], [], []])
        XCTAssertEqual(try broker.retainedText("lookd/cmd/rule/\(cat)/switch"), "ON")
        XCTAssertEqual(try broker.retainedText("lookd/cmd/rule/\(cat)/count"), "2")

        // A second run: the cat is switched off and its count reset; a third run finds both kept.
        let (second, _) = try watch(
            ["1. No\\n2. No", "1. No", "1. No"],
            commands: [1: [("lookd/cmd/rule/\(cat)/reset", "PRESS"), ("lookd/cmd/rule/\(dog)/reset", "PRESS"), ("lookd/cmd/rule/\(cat)/set", "OFF")]])
        let refused = second.filter { $0["event"] as? String == "command" && $0["accepted"] as? Bool == false }
        XCTAssertEqual(refused.map { $0["condition"] as? String }, ["a dog"], "a log rule has no count to reset")
        XCTAssertEqual(second.filter { $0["event"] as? String == "fire" }.count, 0, "the cat is off")
        XCTAssertEqual(try broker.retainedText("lookd/cmd/rule/\(cat)/count"), "0")
        XCTAssertEqual(try broker.retainedText("lookd/cmd/rule/\(cat)/switch"), "OFF")
        let state = KeptState.load(dir.appendingPathComponent("lookd-state.json").path).0
        XCTAssertEqual(state, KeptState(switchedOff: ["a cat"], counts: ["a cat": 0]))

        let (third, _) = try watch(["1. Yes\\n2. Yes"], commands: [1: [("lookd/cmd/rule/\(cat)/set", "ON")]])
        XCTAssertEqual(third.filter { $0["event"] as? String == "fire" }.map { $0["condition"] as? String }, ["a dog"], "still off")
        XCTAssertEqual(try broker.retainedText("lookd/cmd/rule/\(cat)/switch"), "ON", "switched on at the end of the third run")
    }

    /// A rule written `enabled: false` has a switch that stays off, and turning it on is refused
    /// with a line saying the file decides; the event entity gets each fire.
    func testADisabledRuleIsASwitchThatStaysOffAndFiresReachTheEventEntity() throws {
        let broker = try Mosquitto()
        let watch = try InProcessWatch(
            yaml: """
                rules:
                  - when: a cat
                    log: true
                    device_class: motion
                  - when: a dog
                    log: true
                    enabled: false
                """)
        let (cat, dog) = (HomeAssistantDiscovery.id("a cat"), HomeAssistantDiscovery.id("a dog"))
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse(broker.url).get(), name: "dis", discoveryPrefix: "homeassistant", version: "lookd 9.9",
            clock: MonotonicClock())
        let events = try Subscription(broker: broker, topic: "lookd/dis/rule/\(cat)/event", count: 1)
        let subscribed = broker.subscriptions(to: "homeassistant/status")
        let driver = OnFrame { frame in
            guard frame.index == 1 else { return }
            self.connected(mqtt, broker, after: subscribed)
            try? self.publish(broker, "lookd/dis/rule/\(dog)/set", "ON")
            usleep(300_000)
        }
        _ = try watch.run(answers: ["1. No", "1. Yes", "1. No"], frames: 3, outputs: [mqtt, driver])
        let refused = watch.events.filter { $0["event"] as? String == "command" }
        XCTAssertEqual(refused.count, 1)
        XCTAssertEqual(refused.first?["accepted"] as? Bool, false)
        XCTAssertTrue((refused.first?["refused"] as? String ?? "").contains("enabled: false"), "\(refused)")
        XCTAssertEqual(try broker.retainedText("lookd/dis/rule/\(dog)/switch"), "OFF")
        XCTAssertNotNil(try broker.retainedText("homeassistant/switch/dis/\(dog)/config"))
        XCTAssertNil(try broker.retained("homeassistant/binary_sensor/dis/\(dog)/config", seconds: 1), "a disabled rule has only its switch")
        let sensor = try XCTUnwrap(try broker.retainedText("homeassistant/binary_sensor/dis/\(cat)/config"))
        XCTAssertTrue(sensor.contains("\"device_class\":\"motion\""), sensor)
        XCTAssertTrue(sensor.contains("\"sw_version\":\"lookd 9.9\""), sensor)
        let event = try XCTUnwrap(events.wait().first)
        XCTAssertTrue(event.hasPrefix("{\"event_type\":\"fired\""), event)
        XCTAssertTrue(event.contains("\"frame\":2"), event)
    }

    /// A rule that a reload writes `enabled: false` keeps only its switch, off: its other entities go.
    func testARuleDisabledByAReloadKeepsOnlyItsSwitch() throws {
        let broker = try Mosquitto()
        var watch = try InProcessWatch(yaml: "rules:\n  - when: a cat\n    log: true\n  - when: a dog\n    count: true\n")
        watch.config.watchRules = true
        let dog = HomeAssistantDiscovery.id("a dog")
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse(broker.url).get(), name: "re", discoveryPrefix: "homeassistant", clock: MonotonicClock())
        var before: Data?
        let subscribed = broker.subscriptions(to: "homeassistant/status")
        let driver = OnFrame { frame in
            guard frame.index == 1 else { return }
            self.connected(mqtt, broker, after: subscribed)
            before = try? broker.retained("homeassistant/binary_sensor/re/\(dog)/config", seconds: 1)
            try? "rules:\n  - when: a cat\n    log: true\n  - when: a dog\n    count: true\n    enabled: false\n".write(
                toFile: watch.config.rulesSpec, atomically: true, encoding: .utf8)
        }
        _ = try watch.run(answers: ["1. No\\n2. No", "1. No"], frames: 3, outputs: [mqtt, driver])
        XCTAssertNotNil(before, "the dog's sensor before the reload")
        XCTAssertEqual(watch.events.filter { $0["event"] as? String == "rules" }.map { $0["action"] as? String }, ["loaded", "reloaded"])
        for component in ["binary_sensor/re/\(dog)", "event/re/\(dog)", "image/re/\(dog)", "sensor/re/\(dog)_count", "button/re/\(dog)_reset"] {
            XCTAssertNil(try broker.retained("homeassistant/\(component)/config", seconds: 1), "\(component) goes")
        }
        XCTAssertNotNil(try broker.retained("homeassistant/switch/re/\(dog)/config", seconds: 1), "its switch stays")
        XCTAssertEqual(try broker.retainedText("lookd/re/rule/\(dog)/switch"), "OFF")
    }

    /// Home Assistant's restart (`homeassistant/status` `online`) has everything sent again: a config
    /// removed behind lookd's back comes back.
    func testHomeAssistantComingOnlineGetsDiscoveryAgain() throws {
        let broker = try Mosquitto()
        let watch = InProcessWatch(rules: "a cat=log", in: try Fixtures.scratch())
        let cat = HomeAssistantDiscovery.id("a cat")
        let config = "homeassistant/binary_sensor/ha/\(cat)/config"
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse(broker.url).get(), name: "ha", discoveryPrefix: "homeassistant", clock: MonotonicClock())
        var before: Data?
        var after: Data?
        let subscribed = broker.subscriptions(to: "homeassistant/status")
        let driver = OnFrame { frame in
            guard frame.index == 1 else { return }
            self.connected(mqtt, broker, after: subscribed)
            try? self.publish(broker, config, "", retain: true)
            before = try? broker.retained(config, seconds: 1)
            try? self.publish(broker, "homeassistant/status", "online")
            usleep(500_000)
            after = try? broker.retained(config, seconds: 2)
        }
        _ = try watch.run(answers: ["1. No"], frames: 1, outputs: [mqtt, driver])
        XCTAssertNil(before, "removed behind lookd's back")
        XCTAssertNotNil(after, "sent again when Home Assistant came online")
    }
}

/// Home Assistant is offered an image entity a rule only when fires have snapshots to show in it.
final class DiscoveryImageTests: XCTestCase {
    func testAnImageEntityOnlyWithSnapshots() {
        let rule = Rule(condition: "a cat", reaction: .log)
        let with = HomeAssistantDiscovery(prefix: "homeassistant", node: "n", base: "lookd/n").configs(for: rule).map(\.0)
        let without = HomeAssistantDiscovery(prefix: "homeassistant", node: "n", base: "lookd/n", snapshots: false).configs(for: rule).map(\.0)
        XCTAssertEqual(with.filter { $0.hasPrefix("homeassistant/image/") }.count, 1)
        XCTAssertEqual(without.filter { $0.hasPrefix("homeassistant/image/") }.count, 0)
        XCTAssertEqual(Set(with).subtracting(without).count, 1, "nothing else changes")
    }
}

import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// MQTT in-process against a real mosquitto: the watch's events become the retained states,
/// counts, discovery configs and fire events a Home Assistant reads.
final class MQTTOutputTests: XCTestCase {
    func testStatesCountsDiscoveryAndTheFireEventReachARealBroker() throws {
        let broker = try Mosquitto()
        let dir = try Fixtures.scratch()
        var watch = InProcessWatch(rules: "a cat=count|a dog=log", in: dir)
        watch.config.snapshotsDir = nil
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse(broker.url).get(), name: "inproc", discoveryPrefix: "homeassistant", clock: MonotonicClock())
        // The first frame waits (a bounded while) for the connection, so the run's states are sent.
        let connected = OnFrame { frame in
            guard frame.index == 1 else { return }
            Poll.until(within: 10, every: 0.01) { mqtt.state.connected }
        }
        let events = try Subscription(broker: broker, topic: "lookd/inproc/events", count: 2)
        let ending = try watch.run(
            answers: ["1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. Yes"], frames: 3, outputs: [mqtt, connected])
        XCTAssertEqual(ending.fires, 3)
        let cat = "lookd/inproc/rule/\(HomeAssistantDiscovery.id("a cat"))"
        let dog = "lookd/inproc/rule/\(HomeAssistantDiscovery.id("a dog"))"
        XCTAssertEqual(try broker.retainedText("\(cat)/state"), "on")
        XCTAssertEqual(try broker.retainedText("\(dog)/state"), "on", "\(watch.events.filter { $0["event"] as? String == "mqtt" })")
        XCTAssertEqual(try broker.retainedText("\(cat)/count"), "2")
        XCTAssertEqual(try broker.retainedText("lookd/inproc/availability"), "offline", "marked offline at the stop")
        let config = try XCTUnwrap(try broker.retainedText("homeassistant/binary_sensor/inproc/\(HomeAssistantDiscovery.id("a cat"))/config"))
        XCTAssertTrue(config.contains("\"state_topic\":\"\(cat)/state\""), config)
        let fired = try XCTUnwrap(try broker.retainedText("\(cat)/fired"))
        XCTAssertTrue(fired.contains("\"condition\":\"a cat\""), fired)
        XCTAssertEqual(events.wait().count, 2, "each fire is an event (the first two)")
        let lines = watch.events.filter { $0["event"] as? String == "mqtt" }.map { $0["state"] as? String }
        XCTAssertEqual(lines.prefix(2), ["connecting", "connected"])
    }

    /// A lost camera or stream shows on the broker (`source` offline, so Home Assistant shows the
    /// rules' entities unavailable), and its return too.
    func testALostSourceIsOfflineOnTheBrokerUntilItIsBack() throws {
        let broker = try Mosquitto()
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse(broker.url).get(), name: "cam", discoveryPrefix: nil, clock: MonotonicClock())
        try mqtt.start(events: TestEventsList())
        defer { mqtt.stop() }
        let topic = "lookd/cam/source"
        func waitFor(_ text: String) throws {
            try Poll.until(within: 5, every: 0.05) { try broker.retainedText(topic) == text }
            XCTAssertEqual(try broker.retainedText(topic), text)
        }
        try waitFor("online")
        mqtt.receive(.live(LiveChange(kind: "camera", device: "/dev/video0", change: .lost(reason: "unplugged", retry: 1))))
        try waitFor("offline")
        mqtt.receive(.live(LiveChange(kind: "camera", device: "/dev/video0", change: .stillLost(attempt: 2, reason: "unplugged", retry: 2))))
        mqtt.receive(.live(LiveChange(kind: "camera", device: "/dev/video0", change: .found(width: 640, height: 480, native: "", after: 3))))
        try waitFor("online")
    }

    /// Rules removed between two runs leave no entity behind: the second run finds the first's
    /// configs under its device when it connects and removes those of rules it has not.
    func testAnEarlierRunsRulesLeaveNoGhostsAndAnUnreadAnswerIsUnknown() throws {
        let broker = try Mosquitto()
        func run(_ rules: String, answers: [String]) throws -> InProcessWatch {
            let watch = InProcessWatch(rules: rules, in: try Fixtures.scratch())
            let mqtt = MQTTOutput(
                broker: try MQTTBroker.parse(broker.url).get(), name: "ghosts", discoveryPrefix: "homeassistant", clock: MonotonicClock())
            let connected = OnFrame { frame in
                guard frame.index == 1 else { return }
                Poll.until(within: 10, every: 0.01) { mqtt.state.connected }
                usleep(300_000) // the broker's retained configs reach lookd
            }
            _ = try watch.run(answers: answers, frames: answers.count, outputs: [mqtt, connected])
            return watch
        }
        let (cat, dog) = (HomeAssistantDiscovery.id("a cat"), HomeAssistantDiscovery.id("a dog"))
        _ = try run("a cat=log|a dog=count", answers: ["1. Yes\\n2. Yes"])
        XCTAssertNotNil(try broker.retainedText("homeassistant/binary_sensor/ghosts/\(dog)/config"))
        XCTAssertEqual(try broker.retainedText("lookd/ghosts/rule/\(dog)/count"), "1")
        _ = try run("a cat=log", answers: ["1. Yes", "1. Perhaps"])
        XCTAssertNil(try broker.retained("homeassistant/binary_sensor/ghosts/\(dog)/config", seconds: 1), "the dog's entity is gone")
        XCTAssertNil(try broker.retained("homeassistant/sensor/ghosts/\(dog)_count/config", seconds: 1))
        XCTAssertNil(try broker.retained("lookd/ghosts/rule/\(dog)/count", seconds: 1), "and its data")
        XCTAssertNil(try broker.retained("lookd/ghosts/rule/\(dog)/state", seconds: 1))
        XCTAssertNotNil(try broker.retainedText("homeassistant/binary_sensor/ghosts/\(cat)/config"), "the cat's stays")
        XCTAssertEqual(try broker.retainedText("lookd/ghosts/rule/\(cat)/state"), "unknown", "an answer that could not be read")
    }

    func testABrokerThatIsDownDelaysNothingAndTheRunEndsWhole() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=log", in: dir)
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse("mqtt://127.0.0.1:\(LoopbackPort.free())").get(), name: "down", discoveryPrefix: nil, clock: MonotonicClock()
        )
        let started = Date()
        let ending = try watch.run(answers: ["1. Yes", "1. No"], frames: 20, outputs: [mqtt])
        XCTAssertEqual(ending.frames, 20)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "no frame waits for the broker")
        let names = watch.events.map { $0["event"] as? String }
        XCTAssertEqual(names.suffix(2), ["stop", "done"])
    }
}

/// A mosquitto_sub that keeps the first `count` messages of a topic.
final class Subscription {
    private let process: FixtureProcess
    private let file: String

    init(broker: Mosquitto, topic: String, count: Int) throws {
        file = try Fixtures.scratch("sub").appendingPathComponent("messages").path
        _ = FileManager.default.createFile(atPath: file, contents: nil)
        let before = broker.subscriptions(to: topic)
        process = try FixtureProcess(
            "/bin/sh", ["-c", "exec mosquitto_sub -h 127.0.0.1 -p \(broker.port) -t \"$1\" -C \(count) -W 20 > \"$2\"", "sh", topic, file])
        // Subscribed before anything is published.
        broker.waitForSubscription(to: topic, count: before + 1)
    }

    /// The messages, once the subscriber has them all (or gave up after its 20 s).
    func wait() -> [String] {
        process.process.waitUntilExit()
        return ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

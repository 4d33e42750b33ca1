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
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse(broker.url).get(), name: "inproc", discoveryPrefix: "homeassistant")
        // The first frame waits (a bounded while) for the connection, so the run's states are sent.
        let connected = OnFrame { frame in
            guard frame.index == 1 else { return }
            let deadline = Date().addingTimeInterval(10)
            while !mqtt.state.connected && Date() < deadline { usleep(10_000) }
        }
        let events = try Subscription(broker: broker, topic: "lookd/inproc/events", count: 2)
        let ending = try watch.run(
            answers: ["1. Yes\\n2. No", "1. No\\n2. No", "1. Yes\\n2. Yes"], frames: 3, outputs: [mqtt, connected])
        XCTAssertEqual(ending.fires, 3)
        let cat = "lookd/inproc/rule/\(HomeAssistantDiscovery.id("a cat"))"
        let dog = "lookd/inproc/rule/\(HomeAssistantDiscovery.id("a dog"))"
        XCTAssertEqual(try broker.retainedText("\(cat)/state"), "on")
        XCTAssertEqual(try broker.retainedText("\(dog)/state"), "on")
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

    func testABrokerThatIsDownDelaysNothingAndTheRunEndsWhole() throws {
        let dir = try Fixtures.scratch()
        let watch = InProcessWatch(rules: "a cat=log", in: dir)
        let mqtt = MQTTOutput(broker: try MQTTBroker.parse("mqtt://127.0.0.1:\(LoopbackPort.free())").get(), name: "down", discoveryPrefix: nil)
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
        FileManager.default.createFile(atPath: file, contents: nil)
        process = try FixtureProcess(
            "/bin/sh", ["-c", "exec mosquitto_sub -h 127.0.0.1 -p \(broker.port) -t \"$1\" -C \(count) -W 20 > \"$2\"", "sh", topic, file])
        // Subscribed before anything is published.
        usleep(200_000)
    }

    /// The messages, once the subscriber has them all (or gave up after its 20 s).
    func wait() -> [String] {
        process.process.waitUntilExit()
        return ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }
}

import Foundation
import LookCore
import TestFixtures
import XCTest

@testable import Outputs

/// The mosquitto handle is an object of its own: a setting the library refuses throws and the
/// handle is destroyed once (before, `init` destroyed it and then `deinit` destroyed it again: a
/// double free, which glibc ends the process for).
final class MQTTClientLifetimeTests: XCTestCase {
    func testARefusedSettingThrowsAndFreesTheHandleOnce() throws {
        let live = MosquittoHandle.live.value
        let broker = try MQTTBroker.parse("mqtt://127.0.0.1:1").get()
        for _ in 0..<5 {
            XCTAssertThrowsError(
                try MQTTClient(broker: broker, clientID: "lookd-test", will: ("lookd/#/availability", "offline"), clock: MonotonicClock())
            ) { error in
                XCTAssertEqual("\(error)", "mqtt: the last will was refused (topic lookd/#/availability)")
            }
        }
        XCTAssertEqual(MosquittoHandle.live.value, live)
        var client: MQTTClient? = try MQTTClient(
            broker: broker, clientID: "lookd-test", will: ("lookd/test/availability", "offline"), clock: MonotonicClock())
        XCTAssertEqual(MosquittoHandle.live.value, live + 1)
        XCTAssertNotNil(client)
        client = nil
        XCTAssertEqual(MosquittoHandle.live.value, live)
    }
}

/// What `--mqtt` takes.
final class MQTTBrokerTests: XCTestCase {
    func testAnIPv6LiteralLosesItsBracketsForTheSocketAndKeepsThemWhenShown() throws {
        let broker = try MQTTBroker.parse("mqtt://[::1]:1884", environment: [:]).get()
        XCTAssertEqual(broker.host, "::1")
        XCTAssertEqual(broker.port, 1884)
        XCTAssertEqual(broker.shown, "mqtt://[::1]:1884")
        XCTAssertEqual(try MQTTBroker.parse("mqtts://broker.lan", environment: [:]).get().shown, "mqtts://broker.lan:8883")
    }
}

/// A stop sends everything set before it (the client waits for the broker's acknowledgements, not
/// only for its own queue to empty). This passes on the code before that wait too: the window it
/// closes did not show on demand here; the test holds the contract.
final class MQTTStopTests: XCTestCase {
    func testEveryTopicSetJustBeforeAStopReachesTheBroker() throws {
        let broker = try Mosquitto()
        let client = try MQTTClient(
            broker: try MQTTBroker.parse(broker.url).get(), clientID: "lookd-stop", will: ("lookd/stop/availability", "offline"),
            clock: MonotonicClock())
        let publisher = MQTTPublisher(client: client, availability: "lookd/stop/availability")
        publisher.start()
        publisher.waitForFirstConnection(seconds: 5)
        let topics = (0..<120).map { "lookd/stop/rule/r\($0)/count" }
        for (n, topic) in topics.enumerated() { publisher.retain(topic, String(n)) }
        publisher.stop(seconds: 5)
        let kept = try Subscription(broker: broker, topic: "lookd/stop/rule/+/count", count: topics.count).wait()
        XCTAssertEqual(kept.sorted(), (0..<topics.count).map(String.init).sorted(), "every count is retained at the broker")
        XCTAssertEqual(try broker.retainedText("lookd/stop/availability"), "offline")
    }
}

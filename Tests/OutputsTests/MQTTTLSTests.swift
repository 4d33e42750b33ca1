import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// `mqtts://` to a broker that speaks no TLS: the failure is named in the event log and tried
/// again with backoff, not kept quiet.
final class MQTTTLSTests: XCTestCase {
    func testATLSFailureIsNamedAndTriedAgain() throws {
        let broker = try Mosquitto()
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse("mqtts://127.0.0.1:\(broker.port)", environment: [:]).get(), name: "tls", discoveryPrefix: nil,
            clock: MonotonicClock())
        let seen = TestEventsList()
        try mqtt.start(events: seen)
        defer { mqtt.stop() }
        Poll.until(within: 8, every: 0.05) { seen.states.contains { $0.state == "lost" } }
        let lost = try XCTUnwrap(seen.states.first { $0.state == "lost" }, "\(seen.states)")
        XCTAssertFalse((lost.reason ?? "").isEmpty)
        print("MQTT TLS failure reason: \(lost.reason ?? "")")
    }
}

/// The MQTT changes an output reported.
final class TestEventsList: EventSink, @unchecked Sendable {
    private let lock = NSLock()
    private var changes: [MQTTChange] = []
    var states: [MQTTChange] { lock.withLock { changes } }
    func emit(_ event: WatchEvent) { if case .mqtt(let change) = event { lock.withLock { changes.append(change) } } }
}

import Foundation
import LookCore
import Records
import TestFixtures
import TestSupport
import XCTest

@testable import Outputs

/// Brokers that do not behave: one that takes the TCP connection and never answers is given up on
/// with that said (not 30 s of silence and "Unknown error."), and two clients with one id, which
/// take each other's connection, are told why.
final class MQTTConnectionFaultTests: XCTestCase {
    /// A TCP port that accepts connections and never writes a byte.
    private final class SilentListener: @unchecked Sendable {
        let fd: Int32
        let port: Int
        private var accepted: [Int32] = []
        private let lock = NSLock()

        init() throws {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0, listen(fd, 8) == 0 else { throw NSError(domain: "listen", code: Int(errno)) }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
            self.fd = fd
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread.detachNewThread { [self] in
                while true {
                    let client = accept(fd, nil, nil)
                    guard client >= 0 else { return }
                    lock.withLock { accepted.append(client) }
                }
            }
        }

        var connections: Int { lock.withLock { accepted.count } }

        deinit {
            shutdown(fd, Int32(SHUT_RDWR))
            close(fd)
            for client in accepted { close(client) }
        }
    }

    private func waitFor(_ seen: TestEventsList, seconds: Double, _ match: (MQTTChange) -> Bool) -> MQTTChange? {
        var found: MQTTChange?
        Poll.until(within: seconds, every: 0.05) {
            found = seen.states.first(where: match)
            return found != nil
        }
        return found
    }

    func testABrokerThatTakesTheConnectionAndNeverAnswersIsNamedAndTriedAgain() throws {
        let silent = try SilentListener()
        let mqtt = MQTTOutput(
            broker: try MQTTBroker.parse("mqtt://127.0.0.1:\(silent.port)", environment: [:]).get(), name: "silent", discoveryPrefix: nil,
            clock: MonotonicClock())
        let seen = TestEventsList()
        let started = Date()
        try mqtt.start(events: seen)
        defer { mqtt.stop() }
        let lost = try XCTUnwrap(waitFor(seen, seconds: MQTTClient.answerLimit + 6) { $0.state == "lost" }, "\(seen.states)")
        let after = Date().timeIntervalSince(started)
        XCTAssertTrue((lost.reason ?? "").contains("took the connection but gave no MQTT answer in 10 s"), lost.reason ?? "")
        XCTAssertGreaterThanOrEqual(after, MQTTClient.answerLimit - 0.5)
        XCTAssertLessThan(after, MQTTClient.answerLimit + 5, "said when the limit passes, not after the keepalive's 45 s")
        Poll.until(within: 5, every: 0.05) { silent.connections >= 2 }
        XCTAssertGreaterThanOrEqual(silent.connections, 2, "tried again")
    }

    func testTwoClientsWithOneIdAreToldWhyTheyKeepLosingTheConnection() throws {
        let broker = try Mosquitto()
        let url = try MQTTBroker.parse("mqtt://127.0.0.1:\(broker.port)", environment: [:]).get()
        let first = MQTTOutput(broker: url, name: "twin", discoveryPrefix: nil, clock: MonotonicClock())
        let second = MQTTOutput(broker: url, name: "twin", discoveryPrefix: nil, clock: MonotonicClock())
        let (seenFirst, seenSecond) = (TestEventsList(), TestEventsList())
        try first.start(events: seenFirst)
        defer { first.stop() }
        try second.start(events: seenSecond)
        defer { second.stop() }
        var told: MQTTChange?
        Poll.until(within: 25, every: 0.1) {
            told = (seenFirst.states + seenSecond.states).first { ($0.reason ?? "").contains("same client id") }
            return told != nil
        }
        let reason = try XCTUnwrap(told?.reason, "first: \(seenFirst.states)\nsecond: \(seenSecond.states)")
        XCTAssertTrue(reason.contains("give each its own --name"), reason)
    }
}

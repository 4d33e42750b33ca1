internal import CMosquitto
import Foundation
import LookCore

/// The retained topics under a pattern, read once with a short connection of its own: lookd's
/// discovery configs left on the broker by an earlier run. It gives up quietly (no topics) when the
/// broker cannot be reached within its time, which the main connection reports.
enum RetainedSweep {
    /// The retained topics (with a payload) matching `pattern`, gathered until none has come for
    /// `quiet` seconds after the subscription, at most `limit` seconds in all.
    static func topics(broker: MQTTBroker, clientID: String, pattern: String, clock: any Clock, quiet: Double = 1, limit: Double = 5) -> [String] {
        guard let mosquitto = try? MosquittoHandle(clientID: clientID) else { return [] }
        let handle = mosquitto.pointer
        let seen = Seen(pattern: pattern, clock: clock)
        if let user = broker.user { mosquitto_username_pw_set(handle, user, broker.password) }
        if broker.tls, mosquitto_tls_set(handle, nil, "/etc/ssl/certs", nil, nil, nil) != MOSQ_ERR_SUCCESS.rawValue { return [] }
        return withExtendedLifetime(seen) {
            mosquitto_user_data_set(handle, Unmanaged.passUnretained(seen).toOpaque())
            mosquitto_connect_callback_set(handle) { mosq, object, code in
                guard code == 0, let mosq, let object else { return }
                let seen = Unmanaged<Seen>.fromOpaque(object).takeUnretainedValue()
                mosquitto_subscribe(mosq, nil, seen.pattern, 0)
                seen.subscribed()
            }
            mosquitto_message_callback_set(handle) { _, object, message in
                guard let object, let message, message.pointee.retain, message.pointee.payloadlen > 0 else { return }
                Unmanaged<Seen>.fromOpaque(object).takeUnretainedValue().add(String(cString: message.pointee.topic))
            }
            guard mosquitto_connect(handle, broker.host, Int32(broker.port), 10) == MOSQ_ERR_SUCCESS.rawValue else { return [] }
            let started = clock.now()
            while clock.now() - started < limit {
                guard mosquitto_loop(handle, 100, 1) == MOSQ_ERR_SUCCESS.rawValue else { break }
                if let last = seen.lastActivity, clock.now() - last >= quiet { break }
            }
            mosquitto_disconnect(handle)
            return seen.topics
        }
    }

    private final class Seen: @unchecked Sendable {
        let pattern: String
        private(set) var topics: [String] = []
        private(set) var lastActivity: Double?

        let clock: any Clock

        init(pattern: String, clock: any Clock) { (self.pattern, self.clock) = (pattern, clock) }
        func subscribed() { lastActivity = clock.now() }
        func add(_ topic: String) {
            topics.append(topic)
            lastActivity = clock.now()
        }
    }
}

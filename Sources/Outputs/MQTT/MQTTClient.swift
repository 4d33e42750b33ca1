internal import CMosquitto
import Foundation
import LookCore

/// One libmosquitto client handle (`mosquitto_new` … `mosquitto_destroy`), owned once.
final class MosquittoHandle: @unchecked Sendable {
    let pointer: OpaquePointer
    /// Handles alive now (for the tests).
    static let live = LiveCount()
    private static let ready: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue

    init(clientID: String) throws(MQTTURLError) {
        guard Self.ready, let pointer = mosquitto_new(clientID, true, nil) else { throw MQTTURLError(text: "mqtt: libmosquitto could not start") }
        self.pointer = pointer
        Self.live.up()
    }

    deinit {
        mosquitto_destroy(pointer)
        Self.live.down()
    }
}

/// One connection to a broker through libmosquitto: a network thread of its own connects, keeps the
/// connection alive and reconnects with backoff (1 s doubling to 30 s). libmosquitto's own loop ends
/// for good on a failure it calls fatal (TLS, a refused login, a protocol error); this thread names
/// that failure and tries again with the same backoff. A last will marks the instance offline if
/// lookd dies. `publish` never blocks on the network.
final class MQTTClient: @unchecked Sendable {
    private let mosquitto: MosquittoHandle
    private var handle: OpaquePointer { mosquitto.pointer }
    let broker: MQTTBroker
    /// Called on the network thread when a connection is made, and when it is lost (with a reason).
    var onConnect: (@Sendable () -> Void)?
    var onDisconnect: (@Sendable (String) -> Void)?
    /// Topics subscribed to (QoS 1) on each connection, and what comes on them (on the network thread).
    var subscriptions: [String] = []
    var onMessage: (@Sendable (_ topic: String, _ payload: [UInt8], _ retained: Bool) -> Void)?
    private let lock = NSLock()
    private var stopping = false
    /// The broker's answer to the latest connect has come (CONNACK), and when the connection was made.
    private var acknowledged = false
    private var connectedAt: Double?
    /// Why libmosquitto says the latest connection ended.
    private var lastLoss: String?
    /// The most bytes of a message taken in (a command, Home Assistant's status).
    static let payloadLimit = 16 << 10
    /// Messages dropped for their size.
    private(set) var droppedPayloads = 0
    /// Seconds a broker may take to answer a connect before lookd gives up on that try.
    static let answerLimit = 10.0
    /// A connection lost this soon after it was made, twice running, is taken over by another client.
    static let takeoverWindow = 5.0
    private let finished = DispatchSemaphore(value: 0)
    private var started = false
    /// Messages handed to libmosquitto that the broker has not yet acknowledged (PUBACK), by id;
    /// and acknowledgements that came (on the network thread) before `publish` had the id.
    private var unacknowledged: Set<Int32> = []
    private var acknowledgedEarly: Set<Int32> = []
    /// The clock the connect's answer, the backoff and the stop's wait are read on.
    let clock: any Clock

    /// Sets the client up; a setting the library refuses throws, and the handle is freed once (by
    /// its own class).
    init(broker: MQTTBroker, clientID: String, will: (topic: String, payload: String), clock: any Clock) throws(MQTTURLError) {
        self.clock = clock
        let mosquitto = try MosquittoHandle(clientID: clientID)
        let handle = mosquitto.pointer
        if let user = broker.user, mosquitto_username_pw_set(handle, user, broker.password) != MOSQ_ERR_SUCCESS.rawValue {
            throw MQTTURLError(text: "mqtt: the user name was refused")
        }
        if broker.tls {
            let rc = mosquitto_tls_set(handle, nil, "/etc/ssl/certs", nil, nil, nil)
            if rc != MOSQ_ERR_SUCCESS.rawValue { throw MQTTURLError(text: "mqtt: TLS: \(String(cString: mosquitto_strerror(rc)))") }
        }
        let bytes = Array(will.payload.utf8)
        if mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes, 1, true) != MOSQ_ERR_SUCCESS.rawValue {
            throw MQTTURLError(text: "mqtt: the last will was refused (topic \(will.topic))")
        }
        mosquitto_reconnect_delay_set(handle, 1, 30, true)
        self.mosquitto = mosquitto
        self.broker = broker
        mosquitto_user_data_set(handle, Unmanaged.passUnretained(self).toOpaque())
        mosquitto_connect_callback_set(handle) { _, object, code in
            guard let object else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            if code == 0 {
                client.lock.withLock { (client.acknowledged, client.connectedAt) = (true, client.clock.now()) }
                for topic in client.subscriptions { mosquitto_subscribe(client.handle, nil, topic, 1) }
                client.onConnect?()
            } else {
                let refused = String(cString: mosquitto_connack_string(code))
                client.lock.withLock { (client.acknowledged, client.lastLoss) = (true, refused) }
            }
        }
        mosquitto_message_callback_set(handle) { _, object, message in
            guard let object, let message, let topic = message.pointee.topic else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            let count = Int(message.pointee.payloadlen)
            // A command is a word or two: a larger payload is dropped by its size, never copied.
            guard count <= MQTTClient.payloadLimit else {
                client.lock.withLock { client.droppedPayloads += 1 }
                return Log.shared.warning(
                    "MQTT: a message of \(Quantity.bytes(Int64(count))) on \(String(cString: topic)) was dropped (over \(MQTTClient.payloadLimit >> 10) KB)"
                )
            }
            let payload = count > 0 ? [UInt8](UnsafeRawBufferPointer(start: message.pointee.payload, count: count)) : []
            client.onMessage?(String(cString: topic), payload, message.pointee.retain)
        }
        mosquitto_publish_callback_set(handle) { _, object, mid in
            guard let object else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            client.lock.withLock {
                if client.unacknowledged.remove(mid) == nil { client.acknowledgedEarly.insert(mid) }
            }
        }
        mosquitto_disconnect_callback_set(handle) { _, object, code in
            guard let object else { return }
            let client = Unmanaged<MQTTClient>.fromOpaque(object).takeUnretainedValue()
            // Said once, by the network thread's loop, which knows what it tries next.
            client.lock.withLock { client.lastLoss = code == 0 ? nil : MQTTClient.reason(code, errno: 0, tls: client.broker.tls) }
        }
    }

    /// Starts the network thread and the first connection (which may fail; it is retried).
    func start() {
        mosquitto_threaded_set(handle, true)
        lock.withLock { started = true }
        // The thread holds the client (and its handle) until it ends.
        let thread = Thread { [self] in
            run()
            finished.signal()
        }
        thread.name = "lookd mqtt network"
        thread.start()
    }

    private var isStopping: Bool { lock.withLock { stopping } }

    /// Connects and runs libmosquitto's loop; when the connection fails or is lost, says why and
    /// tries again with backoff. A broker that takes the TCP connection but does not answer the
    /// connect within `answerLimit` is given up on with that said; a connection lost within seconds
    /// of being made, twice running, is named as taken over by a client with the same id.
    private func run() {
        var delay = 1.0
        var quickLosses = 0
        var rc = mosquitto_connect_async(handle, broker.host, Int32(broker.port), 30)
        while !isStopping {
            var reason: String?
            if rc == MOSQ_ERR_SUCCESS.rawValue {
                let started = clock.now()
                lock.withLock { (acknowledged, connectedAt, lastLoss, unacknowledged, acknowledgedEarly) = (false, nil, nil, [], []) }
                while !isStopping {
                    rc = mosquitto_loop(handle, 1000, 1)
                    if rc != MOSQ_ERR_SUCCESS.rawValue { break }
                    if !lock.withLock({ acknowledged }) && clock.now() - started > Self.answerLimit {
                        mosquitto_disconnect(handle)
                        reason =
                            "\(broker.host):\(broker.port) took the connection but gave no MQTT answer in \(Int(Self.answerLimit)) s "
                            + "(is it an MQTT broker, and is this its \(broker.tls ? "TLS" : "plain") port?)"
                        break
                    }
                }
                if isStopping { return }
                if let since = lock.withLock({ connectedAt }) {
                    quickLosses = clock.now() - since < Self.takeoverWindow ? quickLosses + 1 : 0
                    delay = quickLosses > 0 ? delay : 1
                }
            }
            var said =
                reason ?? lock.withLock({ lastLoss })
                ?? Self.reason(rc == MOSQ_ERR_SUCCESS.rawValue ? MOSQ_ERR_CONN_LOST.rawValue : rc, errno: errno, tls: broker.tls)
            if quickLosses >= 2 {
                said +=
                    "; lost within seconds of connecting, again: another client is probably connected with the same client id "
                    + "(two lookd instances with one \(SettingName.name) take each other's connection; give each its own \(SettingName.name))"
            }
            onDisconnect?(said)
            let until = clock.now() + delay
            while !isStopping && clock.now() < until { clock.sleep(0.05) }
            delay = min(30, delay * 2)
            if isStopping { return }
            rc = mosquitto_reconnect_async(handle)
        }
    }

    /// A libmosquitto error in words.
    static func reason(_ rc: Int32, errno code: Int32, tls: Bool) -> String {
        switch rc {
        case MOSQ_ERR_ERRNO.rawValue: return String(cString: strerror(code))
        case MOSQ_ERR_TLS.rawValue:
            return "the TLS handshake failed (is the port a TLS listener, and its certificate one this machine trusts?)"
        case MOSQ_ERR_AUTH.rawValue: return "the broker refused the user name or password"
        case MOSQ_ERR_KEEPALIVE.rawValue: return "the broker stopped answering (no reply to the keepalive pings)"
        case MOSQ_ERR_CONN_LOST.rawValue: return "the connection was lost"
        default: return String(cString: mosquitto_strerror(rc))
        }
    }

    enum Published: Equatable {
        case sent, noConnection
        case refused(String)
    }

    /// Hands one message to libmosquitto (QoS 1), which sends it from its network thread.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], retain: Bool) -> Published {
        var mid: Int32 = 0
        let rc = payload.withUnsafeBytes { mosquitto_publish(handle, &mid, topic, Int32($0.count), $0.baseAddress, 1, retain) }
        switch rc {
        case MOSQ_ERR_SUCCESS.rawValue:
            lock.withLock {
                if acknowledgedEarly.remove(mid) == nil { unacknowledged.insert(mid) }
            }
            return .sent
        case MOSQ_ERR_NO_CONN.rawValue, MOSQ_ERR_CONN_LOST.rawValue: return .noConnection
        default: return .refused(String(cString: mosquitto_strerror(rc)))
        }
    }

    /// Publishes `payload` and disconnects cleanly, waiting up to `seconds` for the broker to
    /// acknowledge everything sent: an empty write queue says only that libmosquitto handed a
    /// message on, not that the broker took it before the disconnect.
    func stop(last: (topic: String, payload: [UInt8])?, seconds: Double = 2) {
        if let last { publish(last.topic, last.payload, retain: true) }
        let deadline = clock.now() + seconds
        while clock.now() < deadline, mosquitto_want_write(handle) || lock.withLock({ acknowledged && !unacknowledged.isEmpty }) {
            clock.sleep(0.01)
        }
        let wasStarted = lock.withLock { () -> Bool in
            stopping = true
            return started
        }
        mosquitto_disconnect(handle)
        // The thread ends within a second (its loop's timeout), or within its connection's limit.
        if wasStarted { _ = finished.wait(timeout: .now() + max(1.5, deadline - clock.now())) }
    }
}

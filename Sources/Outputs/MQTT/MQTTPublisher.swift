import Foundation
import LookCore

/// The watch's side of MQTT: the loop hands messages over and goes on; a thread of the publisher's
/// own sends them while the broker is there.
/// - Retained topics (states, discovery, snapshots) keep only their newest payload, and all of them
///   are sent again on each new connection, so a broker that restarted empty is filled again.
/// - Other messages (fire events) wait in a queue of `capacity`; past it the oldest is dropped,
///   counted, and logged once per outage.
final class MQTTPublisher: @unchecked Sendable {
    /// One event as it goes out: a message or a few (a fire on the events topic and on its rule's
    /// event topic), queued, dropped and counted as one.
    struct Message: Sendable {
        var parts: [(topic: String, payload: [UInt8])]
    }

    let client: MQTTClient
    let capacity: Int
    let availability: String
    private let condition = NSCondition()
    private var retained: [String: [UInt8]] = [:]
    private var retainedOrder: [String] = []
    private var dirty: Set<String> = []
    private var queue: [Message] = []
    private var connected = false
    private var stopping = false
    /// The publishing thread has taken a topic or a message and is handing it to the client.
    private var sending = false
    private var thread: Thread?
    /// Dropped in this outage, and in the run.
    private var droppedNow = 0
    private(set) var dropped = 0
    private(set) var sent = 0
    private var everConnected = false
    private var outageLogged = false
    private var lossReported = false
    /// Connection changes, for the event log: `connected` (with what was dropped while away) or `lost`.
    var onState: (@Sendable (_ state: String, _ detail: String?, _ dropped: Int) -> Void)?

    init(client: MQTTClient, availability: String, capacity: Int = 256) {
        self.client = client
        self.availability = availability
        self.capacity = max(1, capacity)
        client.onConnect = { [weak self] in self?.connectionMade() }
        client.onDisconnect = { [weak self] reason in self?.connectionLost(reason) }
    }

    func start() {
        let thread = Thread { [weak self] in self?.run() }
        thread.name = "lookd mqtt"
        self.thread = thread
        thread.start()
        client.start()
    }

    /// Sets a retained topic's payload (an empty payload removes the topic at the broker). `last`:
    /// it goes after every topic set before it (a removed rule's data topics after its configs).
    func retain(_ topic: String, _ payload: [UInt8], last: Bool = false) {
        condition.withLock {
            if retained[topic] == payload { return }
            if last { retainedOrder.removeAll { $0 == topic } }
            if retained[topic] == nil || last { retainedOrder.append(topic) }
            retained[topic] = payload
            dirty.insert(topic)
            condition.signal()
        }
    }

    func retain(_ topic: String, _ text: String) { retain(topic, Array(text.utf8)) }

    /// Sends every retained topic again (Home Assistant restarted and lost what it had read).
    func resendRetained() {
        condition.withLock {
            dirty = Set(retained.keys)
            condition.signal()
        }
    }

    /// Queues a message that is not retained; the oldest is dropped when the queue is full.
    func send(_ topic: String, _ text: String) { send([(topic, text)]) }

    /// Queues messages that go together (one event on several topics), dropped together.
    func send(_ messages: [(topic: String, text: String)]) {
        condition.withLock {
            if queue.count >= capacity {
                queue.removeFirst()
                dropped += 1
                droppedNow += 1
                if !outageLogged {
                    outageLogged = true
                    Log.shared.error("mqtt: \(client.broker.shown) is away and \(capacity) messages wait; dropping the oldest until it is back")
                }
            }
            queue.append(Message(parts: messages.map { ($0.topic, Array($0.text.utf8)) }))
            condition.signal()
        }
    }

    /// Waits (at most `seconds`) until the first connection is made and everything set so far has
    /// been handed over, or the first attempt failed (a broker that is down delays nothing).
    func waitForFirstConnection(seconds: Double) {
        client.clock.wait(upTo: seconds, every: 0.005) { condition.withLock { (everConnected && dirty.isEmpty) || lossReported } }
    }

    /// Messages waiting, and whether the broker is connected.
    var state: (waiting: Int, connected: Bool, dropped: Int) { condition.withLock { (queue.count, connected, dropped) } }

    /// Marks the instance offline, sends what can go within `seconds`, and disconnects.
    func stop(seconds: Double = 2) {
        let clock = client.clock
        let deadline = clock.now() + seconds
        while clock.now() < deadline, condition.withLock({ connected && (!queue.isEmpty || !dirty.isEmpty || sending) }) { clock.sleep(0.01) }
        condition.withLock {
            stopping = true
            condition.broadcast()
        }
        client.stop(last: (availability, Array("offline".utf8)), seconds: max(0.2, deadline - clock.now()))
    }

    private func connectionMade() {
        condition.withLock {
            connected = true
            dirty = Set(retained.keys)
            let away = droppedNow
            droppedNow = 0
            outageLogged = false
            lossReported = false
            if everConnected {
                Log.shared.notice("mqtt: \(client.broker.shown) is back\(away > 0 ? "; \(away) messages were dropped while it was away" : "")")
            } else {
                Log.shared.notice(
                    "mqtt: connected to \(client.broker.shown)\(away > 0 ? "; \(away) messages were dropped before it could be reached" : "")")
            }
            everConnected = true
            onState?("connected", nil, away)
            condition.signal()
        }
        client.publish(availability, Array("online".utf8), retain: true)
    }

    private func connectionLost(_ reason: String) {
        // Once an outage (the publishing thread may have found it first), not at each retry.
        let report = condition.withLock { () -> Bool in
            connected = false
            guard !stopping && !lossReported else { return false }
            lossReported = true
            return true
        }
        if report {
            Log.shared.error("mqtt: \(client.broker.shown): \(reason); reconnecting with backoff")
            onState?("lost", reason, 0)
        }
    }

    /// The publishing thread: retained topics first (in the order they were first set), then the queue.
    private func run() {
        while true {
            condition.lock()
            while !stopping && !(connected && (!dirty.isEmpty || !queue.isEmpty)) { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            var retainedTopic: (topic: String, payload: [UInt8])?
            var event: Message?
            if let topic = retainedOrder.first(where: { dirty.contains($0) }) {
                dirty.remove(topic)
                retainedTopic = (topic, retained[topic] ?? [])
                // An emptied topic is gone at the broker once sent: it is not sent again on reconnect.
                if retained[topic]?.isEmpty == true {
                    retained[topic] = nil
                    retainedOrder.removeAll { $0 == topic }
                }
            } else if !queue.isEmpty {
                event = queue.removeFirst()
            }
            sending = true
            condition.unlock()
            defer { condition.withLock { sending = false } }
            if let (topic, payload) = retainedTopic, !publish(topic, payload, retain: true) {
                // No connection after all: set it again and wait for the next one.
                condition.withLock {
                    if retained[topic] == nil {
                        retained[topic] = payload
                        retainedOrder.append(topic)
                    }
                    dirty.insert(topic)
                }
            }
            if var event {
                while let part = event.parts.first, publish(part.topic, part.payload, retain: false) { event.parts.removeFirst() }
                // What did not go waits at the head of the queue for the next connection.
                if !event.parts.isEmpty { condition.withLock { queue.insert(event, at: 0) } }
            }
        }
    }

    /// Hands one message to the client; false when there was no connection after all.
    private func publish(_ topic: String, _ payload: [UInt8], retain: Bool) -> Bool {
        switch client.publish(topic, payload, retain: retain) {
        case .sent: condition.withLock { sent += 1 }
        case .refused(let reason): Log.shared.error("mqtt: \(topic): \(reason); not sent")
        case .noConnection:
            condition.withLock { connected = false }
            return false
        }
        return true
    }
}

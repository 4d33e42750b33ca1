import Foundation
import LookCore
import Records
import Rules

/// What the watch publishes over MQTT, under `lookd/<name>/`:
/// - `availability`: `online`, or `offline` (also the last will), retained;
/// - `rule/<id>/state`: the rule's answer, `on`, `off` or `unknown`, retained;
/// - `rule/<id>/fired`: the rule's last fire as JSON, retained; `rule/<id>/snapshot`: its JPEG,
///   retained; `rule/<id>/count`: a count rule's count, retained;
/// - `events`: each fire as JSON (not retained);
/// and, unless discovery is off, Home Assistant's discovery configs (`HomeAssistantDiscovery`).
/// Configs left on the broker by an earlier run for rules this run has not (ghost entities) are
/// found when it connects (the retained configs under this instance's device) and removed.
/// The connection is made (and remade) by the client's own thread, so a broker that is down
/// delays nothing.
public final class MQTTOutput: WatchOutput, OutputState, @unchecked Sendable {
    public let name = "mqtt"
    let broker: MQTTBroker
    let base: String
    let node: String
    let capacity: Int
    let discovery: HomeAssistantDiscovery?
    private let lock = NSLock()
    private var publisher: MQTTPublisher?
    /// The rules in force, with their counts; set from the rules' events before and after the start.
    private var rules: [Rule] = []
    private var published: [Rule] = []
    /// The sweep for an earlier run's ghosts, which a stop waits for (a few seconds at most).
    private let sweep = DispatchGroup()

    /// Publishes to `broker` as the instance `name` once started.
    public init(broker: MQTTBroker, name: String, discoveryPrefix: String?, capacity: Int = 256) {
        self.broker = broker
        let node = HomeAssistantDiscovery.node(name)
        self.node = node
        base = "lookd/\(node)"
        self.capacity = capacity
        discovery = discoveryPrefix.map { HomeAssistantDiscovery(prefix: $0, node: node, base: "lookd/\(node)") }
    }

    public func start(events: any EventSink) throws(OutputFailure) {
        let client: MQTTClient
        do {
            client = try MQTTClient(broker: broker, clientID: "lookd-\(node)", will: (base + "/availability", "offline"))
        } catch {
            throw OutputFailure(error.description)
        }
        let publisher = MQTTPublisher(client: client, availability: base + "/availability", capacity: capacity)
        let shown = broker.shown
        publisher.onState = { [weak events] state, detail, dropped in
            events?.emit(.mqtt(MQTTChange(state: state, broker: shown, reason: detail, dropped: dropped)))
        }
        events.emit(.mqtt(MQTTChange(state: "connecting", broker: shown, name: node)))
        let rules = lock.withLock {
            self.publisher = publisher
            return self.rules
        }
        adopt(rules.map { ($0, $0.reaction.isCount ? 0 : nil) })
        publisher.start()
        // Once the rules in force are known: on a thread of its own, with a connection of its own.
        if let discovery {
            let (broker, pattern, node) = (broker, "\(discovery.prefix)/+/\(node)/+/config", node)
            sweep.enter()
            Thread.detachNewThread { [weak self, sweep] in
                defer { sweep.leave() }
                for topic in RetainedSweep.topics(broker: broker, clientID: "lookd-\(node)-sweep", pattern: pattern) { self?.found(config: topic) }
            }
        }
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .rules(let change) where change.action == .loaded:
            lock.withLock { rules = change.rules }
        case .reloaded(true, let snapshot): adopt(snapshot.rows.map { ($0.rule, $0.count) })
        case .answered(let frame): states(frame.answers)
        case .fired(let fire, let rule, let count): fired(fire, rule: rule, count: count)
        case .described(let description, let fire): described(description, fire: fire)
        default: break
        }
    }

    /// Marks the instance offline and disconnects (once the sweep for ghosts has sent its removals).
    public func stop() {
        _ = sweep.wait(timeout: .now() + 6)
        let publisher = lock.withLock { () -> MQTTPublisher? in
            defer { self.publisher = nil }
            return self.publisher
        }
        publisher?.stop()
    }

    /// A rule's topics: `lookd/<name>/rule/<id>`.
    func topic(_ rule: Rule) -> String { "\(base)/rule/\(HomeAssistantDiscovery.id(rule.condition))" }

    /// Configs for the rules in force, and the topics of rules that went are emptied: their configs
    /// first (Home Assistant then lets go of the entity), then their data topics.
    private func adopt(_ new: [(rule: Rule, count: Int?)]) {
        guard let publisher = lock.withLock({ publisher }) else { return }
        let kept = Set(new.map(\.rule.condition))
        let old = lock.withLock { published }
        for gone in old where !kept.contains(gone.condition) {
            for (configTopic, _) in discovery?.configs(for: gone) ?? [] { publisher.retain(configTopic, []) }
            clearData(of: topic(gone), publisher)
        }
        let before = Set(old.map(\.condition))
        for (rule, count) in new {
            for (configTopic, json) in discovery?.configs(for: rule) ?? [] { publisher.retain(configTopic, json.text()) }
            if !before.contains(rule.condition) { publisher.retain("\(topic(rule))/state", "unknown") }
            if let count { publisher.retain("\(topic(rule))/count", String(count)) }
        }
        lock.withLock { published = new.map(\.rule) }
    }

    /// A rule's data topics emptied, after everything set before them.
    private func clearData(of ruleTopic: String, _ publisher: MQTTPublisher) {
        for suffix in ["state", "fired", "snapshot", "count"] { publisher.retain("\(ruleTopic)/\(suffix)", [], last: true) }
    }

    /// A retained config under this instance's device, read when connecting: one of no rule in force
    /// is an earlier run's ghost, and goes with its data topics.
    private func found(config topic: String) {
        guard let publisher = lock.withLock({ publisher }), let discovery else { return }
        let known = Set(lock.withLock { published }.flatMap { discovery.configs(for: $0).map(\.0) })
        guard !known.contains(topic) else { return }
        let parts = topic.split(separator: "/")
        guard parts.count >= 4 else { return }
        var id = String(parts[parts.count - 2])
        if id.hasSuffix("_count") { id.removeLast("_count".count) }
        Log.shared.notice("mqtt: removing \(topic), left by an earlier run for a rule that is gone")
        publisher.retain(topic, [])
        clearData(of: "\(base)/rule/\(id)", publisher)
    }

    /// Each frame's answers as they are read (before its fires and holds): `on`, `off`, or
    /// `unknown` for an answer that could not be read (sent only when they change).
    private func states(_ answers: [Answer]) {
        guard let publisher = lock.withLock({ publisher }) else { return }
        let rules = lock.withLock { published }
        for (rule, answer) in zip(rules, answers) {
            let state: String
            switch answer {
            case .yes: state = "on"
            case .no: state = "off"
            default: state = "unknown"
            }
            publisher.retain("\(topic(rule))/state", state)
        }
    }

    /// A fire: the event, the rule's last fire and snapshot, and a count rule's count.
    private func fired(_ fire: FireOutcome, rule: Rule, count: Int?) {
        guard let publisher = lock.withLock({ publisher }), let context = fire.context else { return }
        let json = context.json.text()
        publisher.send(base + "/events", json)
        publisher.retain("\(topic(rule))/fired", json)
        if let path = fire.snapshot, let bytes = FileManager.default.contents(atPath: path) {
            publisher.retain("\(topic(rule))/snapshot", [UInt8](bytes))
        }
        if let count { publisher.retain("\(topic(rule))/count", String(count)) }
    }

    /// A fire's description: a `described` message on the events topic, and the rule's `fired`
    /// attributes again, with the description in them.
    private func described(_ description: DescribeOutcome, fire: FireOutcome) {
        guard let publisher = lock.withLock({ publisher }), let context = fire.context else { return }
        let message = JSON.object([("event", .string("described"))] + description.eventFields)
        publisher.send(base + "/events", message.text())
        guard case .object(let fields) = context.json else { return }
        let rule = lock.withLock { published }.first { $0.condition == fire.condition }
        let topic = rule.map { self.topic($0) } ?? "\(base)/rule/\(HomeAssistantDiscovery.id(fire.condition))"
        publisher.retain("\(topic)/fired", JSON.object(fields + [("description", .optional(description.text))]).text())
    }

    /// Connected now, messages waiting, and dropped in the run.
    public var state: (connected: Bool, waiting: Int, dropped: Int) {
        guard let s = lock.withLock({ publisher })?.state else { return (false, 0, 0) }
        return (s.connected, s.waiting, s.dropped)
    }

    var dropped: Int { state.dropped }

    var stateEntry: (String, JSON)? {
        let s = state
        return (
            "mqtt",
            .object([
                ("broker", .string(broker.shown)), ("connected", .bool(s.connected)), ("waiting", .int(s.waiting)), ("dropped", .int(s.dropped)),
            ])
        )
    }
}

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
public final class MQTTOutput: @unchecked Sendable {
    let publisher: MQTTPublisher
    let base: String
    let name: String
    let discovery: HomeAssistantDiscovery?
    private var rules: [Rule] = []
    /// A count rule's count now (the reactor's).
    var count: (@Sendable (String) -> Int)?

    /// Connects (from a thread of its own) to `broker` as the instance `name`.
    public init(broker: MQTTBroker, name: String, discoveryPrefix: String?, capacity: Int = 256) throws(MQTTURLError) {
        let node = HomeAssistantDiscovery.node(name)
        self.name = node
        base = "lookd/\(node)"
        let client = try MQTTClient(broker: broker, clientID: "lookd-\(node)", will: (base + "/availability", "offline"))
        publisher = MQTTPublisher(client: client, availability: base + "/availability", capacity: capacity)
        discovery = discoveryPrefix.map { HomeAssistantDiscovery(prefix: $0, node: node, base: "lookd/\(node)") }
    }

    /// The broker's connection changes, for the event log.
    var onState: (@Sendable (_ state: String, _ detail: String?, _ dropped: Int) -> Void)? {
        get { publisher.onState }
        set { publisher.onState = newValue }
    }

    public func start(rules: [Rule]) {
        adopt(rules)
        publisher.start()
    }

    /// A rule's topics: `lookd/<name>/rule/<id>`.
    func topic(_ rule: Rule) -> String { "\(base)/rule/\(HomeAssistantDiscovery.id(rule.condition))" }

    /// After a reload: configs for the new rules, and the topics of rules that went are emptied.
    func adopt(_ new: [Rule]) {
        let kept = Set(new.map(\.condition))
        for old in rules where !kept.contains(old.condition) {
            for suffix in ["state", "fired", "snapshot", "count"] { publisher.retain("\(topic(old))/\(suffix)", []) }
            for (configTopic, _) in discovery?.configs(for: old) ?? [] { publisher.retain(configTopic, []) }
        }
        let before = Set(rules.map(\.condition))
        for rule in new {
            for (configTopic, json) in discovery?.configs(for: rule) ?? [] { publisher.retain(configTopic, json.text()) }
            if !before.contains(rule.condition) { publisher.retain("\(topic(rule))/state", "unknown") }
            if case .count = rule.reaction { publisher.retain("\(topic(rule))/count", String(count?(rule.condition) ?? 0)) }
        }
        rules = new
    }

    /// Each answered frame: the rules' states (sent only when they change).
    func frame(_ snapshot: WatchSnapshot) {
        for row in snapshot.rows {
            let state: String
            switch row.state.last {
            case .yes?: state = "on"
            case .no?: state = "off"
            default: state = "unknown"
            }
            publisher.retain("\(topic(row.rule))/state", state)
        }
    }

    /// A fire: the event, the rule's last fire and snapshot, and a count rule's count.
    func fired(_ fire: FireOutcome, rule: Rule) {
        guard let context = fire.context else { return }
        let json = context.json.text()
        publisher.send(base + "/events", json)
        publisher.retain("\(topic(rule))/fired", json)
        if let path = fire.snapshot, let bytes = FileManager.default.contents(atPath: path) {
            publisher.retain("\(topic(rule))/snapshot", [UInt8](bytes))
        }
        if case .count = rule.reaction { publisher.retain("\(topic(rule))/count", String(count?(rule.condition) ?? 0)) }
    }

    /// Marks the instance offline and disconnects.
    public func stop() { publisher.stop() }

    /// The broker, as shown.
    public var broker: String? { publisher.client.broker.shown }

    /// Connected now, messages waiting, and dropped in the run.
    public var state: (connected: Bool, waiting: Int, dropped: Int) {
        let s = publisher.state
        return (s.connected, s.waiting, s.dropped)
    }
}

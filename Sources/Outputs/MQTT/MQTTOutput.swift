import Foundation
import LookCore
import Records
import Rules

/// What the watch publishes over MQTT, under `lookd/<name>/`:
/// - `availability`: `online`, or `offline` (also the last will), retained;
/// - `source`: `online` while the camera or stream gives frames, `offline` while it is lost
///   (retained): Home Assistant shows the rules' entities unavailable then, as a camera offline;
/// - `rule/<id>/state`: the rule's answer, `on`, `off` or `unknown`, retained, as soon as it is read;
/// - `rule/<id>/fired`: the rule's last fire as JSON, retained; `rule/<id>/snapshot`: its JPEG,
///   retained; `rule/<id>/count`: a count rule's count, retained; `rule/<id>/switch`: `ON` while the
///   rule is watched, `OFF` once switched off, retained;
/// - `rule/<id>/event`: each fire (`event_type` `fired`), its description (`described`) and its clip (`clip`), for
///   Home Assistant's event entity; `events`: each fire and description as JSON (not retained);
/// and, unless discovery is off, Home Assistant's discovery configs (`HomeAssistantDiscovery`).
/// - `watching`: `ON` while the watch asks its rules, `OFF` while it is paused, retained.
/// It takes commands on `rule/<id>/set` (`ON`, `OFF`: the rule's switch), `rule/<id>/reset`
/// (`PRESS`: a count back to 0) and `watching/set` (`ON`, `OFF`: the whole watch, a camera of
/// several paused or resumed), and republishes everything when `<prefix>/status` says `online`
/// (Home Assistant restarted). Anything else on those topics is logged and ignored; the broker's ACL
/// says who may publish there.
/// Configs left on the broker by an earlier run for rules this run has not (ghost entities) are
/// found when it connects (the retained configs under this instance's device) and removed.
/// The connection is made (and remade) by the client's own thread, so a broker that is down
/// delays nothing.
public final class MQTTOutput: CommandingOutput, OutputState, @unchecked Sendable {
    public let name = "mqtt"
    public let share = HouseShare.renamedPerCamera
    let broker: MQTTBroker
    let base: String
    let node: String
    let capacity: Int
    let discovery: HomeAssistantDiscovery?
    let lock = NSLock()
    var publisher: MQTTPublisher?
    /// The rules in force, with their counts; set from the rules' events before and after the start.
    private var rules: [Rule] = []
    var published: [Rule] = []
    /// The rules written `enabled: false`: a switch each, off; and those whose switch was published.
    var disabled: [Rule] = []
    var publishedDisabled: [Rule] = []
    /// Where commands from the command topics go (the loop takes them before its next frame).
    var commands: RuleCommands?
    /// The page (`--http`): the device's `configuration_url`, and where snapshots are linked.
    let page: String?
    /// The sweep for an earlier run's ghosts, which a stop waits for (a few seconds at most).
    private let sweep = DispatchGroup()
    /// Removed rules' data topics waiting to be emptied (`clearData`), which a stop waits for.
    var clearing: Set<String> = []
    /// When the last ignored message was logged, and those ignored since without a line.
    var lastIgnoredLine = -Double.infinity
    var ignoredUnsaid = 0
    let clears = DispatchGroup()
    /// The clock the connection, the clears and the lines' spacing are read on.
    let clock: any Clock

    /// Publishes to `broker` as the instance `name` once started.
    public init(
        broker: MQTTBroker, name: String, discoveryPrefix: String?, capacity: Int = 256, version: String = "lookd", page: String? = nil,
        snapshots: Bool = true, clock: any Clock
    ) {
        self.broker = broker
        self.clock = clock
        let node = HomeAssistantDiscovery.node(name)
        self.node = node
        base = "lookd/\(node)"
        self.capacity = capacity
        self.page = page
        discovery = discoveryPrefix.map {
            HomeAssistantDiscovery(prefix: $0, node: node, base: "lookd/\(node)", version: version, page: page, snapshots: snapshots)
        }
    }

    public func accept(commands: RuleCommands) { lock.withLock { self.commands = commands } }

    public func start(events: any EventSink) throws(OutputFailure) {
        let client: MQTTClient
        do {
            client = try MQTTClient(broker: broker, clientID: "lookd-\(node)", will: (base + "/availability", "offline"), clock: clock)
        } catch {
            throw OutputFailure(error.description)
        }
        client.subscriptions =
            [base + "/rule/+/set", base + "/rule/+/reset", base + "/watching/set"] + (discovery.map { [$0.prefix + "/status"] } ?? [])
        client.onMessage = { [weak self] topic, payload, retained in self?.message(topic, payload, retained: retained) }
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
        // Counts and switches come with the first snapshot; the broker keeps the last run's meanwhile.
        adopt(rules.map { Entry(rule: $0) })
        // The outputs start with the source open.
        publisher.retain(base + "/source", "online")
        publisher.start()
        // The first frame's states reach a broker that is there: connected, and discovery sent.
        publisher.waitForFirstConnection(seconds: 5)
        // Once the rules in force are known: on a thread of its own, with a connection of its own.
        if let discovery {
            let (broker, pattern, node, clock) = (broker, "\(discovery.prefix)/+/\(node)/+/config", node, clock)
            sweep.enter()
            Thread.detachNewThread { [weak self, sweep] in
                defer { sweep.leave() }
                for topic in RetainedSweep.topics(broker: broker, clientID: "lookd-\(node)-sweep", pattern: pattern, clock: clock) {
                    self?.found(config: topic)
                }
            }
        }
    }

    public func receive(_ event: WatchEvent) {
        switch event {
        case .rules(let change) where change.action == .loaded:
            lock.withLock { (rules, disabled) = (change.rules, change.disabled) }
        case .rules(let change) where change.action == .reloaded: lock.withLock { disabled = change.disabled }
        case .watching(let snapshot), .reloaded(true, let snapshot), .command(_, let snapshot):
            adopt(snapshot.rows.map(Entry.init))
            lock.withLock { publisher }?.retain(base + "/watching", snapshot.paused ? "OFF" : "ON")
        case .answered(let frame): states(frame.answers)
        case .fired(let fire, let rule, let count): fired(fire, rule: rule, count: count)
        case .described(let description, let fire): described(description, fire: fire)
        case .clip(let clip): clipped(clip)
        case .live(let change):
            let up: Bool
            switch change.change {
            case .lost, .stillLost: up = false
            case .found: up = true
            }
            lock.withLock { publisher }?.retain(base + "/source", up ? "online" : "offline")
        default: break
        }
    }

    /// Marks the instance offline and disconnects (once the sweep for ghosts has sent its removals).
    public func stop() {
        _ = sweep.wait(timeout: .now() + 6)
        _ = clears.wait(timeout: .now() + Self.clearDelay + 1)
        let publisher = lock.withLock { () -> MQTTPublisher? in
            defer { self.publisher = nil }
            return self.publisher
        }
        publisher?.stop()
    }

    /// A rule's topics: `lookd/<name>/rule/<id>`.
    func topic(_ rule: Rule) -> String { "\(base)/rule/\(HomeAssistantDiscovery.id(rule.condition))" }

    /// A rule in force, with its count and switch when a snapshot has them.
    private struct Entry {
        var rule: Rule
        var count: Int?
        var watched: Bool?

        init(rule: Rule) { self.rule = rule }
        init(_ row: WatchSnapshot.Row) { (rule, count, watched) = (row.rule, row.count, !row.switchedOff) }
    }

    /// Configs for the rules in force (and a switch, off, for each rule written `enabled: false`);
    /// the topics of rules that went are emptied: their configs first (Home Assistant then lets go
    /// of the entity), then their data topics.
    private func adopt(_ new: [Entry]) {
        guard let publisher = lock.withLock({ publisher }) else { return }
        let disabled = lock.withLock { self.disabled }
        let all = new.map(\.rule) + disabled
        let kept = Set(all.map(\.condition))
        let old = lock.withLock { published + publishedDisabled }
        // A config no rule has now goes (a rule removed, or one now written enabled: false, which
        // keeps only its switch); a removed rule's data topics go after it.
        let configs = all.flatMap { discovery?.configs(for: $0) ?? [] } + (discovery.map { [$0.watchingConfig] } ?? [])
        let current = Set(configs.map(\.0))
        for (configTopic, _) in old.flatMap({ discovery?.configs(for: $0) ?? [] }) where !current.contains(configTopic) {
            publisher.retain(configTopic, [])
        }
        for gone in old where !kept.contains(gone.condition) { clearData(of: topic(gone), publisher) }
        let before = Set(old.map(\.condition))
        for (configTopic, json) in configs { publisher.retain(configTopic, json.text()) }
        for entry in new {
            let topic = topic(entry.rule)
            if !before.contains(entry.rule.condition) { publisher.retain("\(topic)/state", "unknown") }
            if let count = entry.count { publisher.retain("\(topic)/count", String(count)) }
            if let watched = entry.watched { publisher.retain("\(topic)/switch", watched ? "ON" : "OFF") }
        }
        for rule in disabled { publisher.retain("\(topic(rule))/switch", "OFF") }
        lock.withLock { (published, publishedDisabled) = (new.map(\.rule), disabled) }
    }

    /// The least time between two resends for Home Assistant's `online`.
    static let resendGap: TimeInterval = 5
    /// When everything was last sent again for an `online`.
    var lastResend = -Double.infinity

    /// How long a removed rule's data topics wait after its configs.
    static let clearDelay = 1.5

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
        guard let publisher = lock.withLock({ publisher }), var context = fire.context else { return }
        let plain = context.json.text()
        context.snapshot = context.snapshot.map(link)
        publisher.retain("\(topic(rule))/fired", context.json.text())
        publisher.send([(base + "/events", plain), ("\(topic(rule))/event", Self.event("fired", context.json))])
        if let path = fire.snapshot, let bytes = FileManager.default.contents(atPath: path) {
            publisher.retain("\(topic(rule))/snapshot", [UInt8](bytes))
        }
        if let count { publisher.retain("\(topic(rule))/count", String(count)) }
    }

    /// A fire's description: a `described` message on the events topic, and the rule's `fired`
    /// attributes again, with the description in them.
    private func described(_ description: DescribeOutcome, fire: FireOutcome) {
        guard let publisher = lock.withLock({ publisher }), var context = fire.context else { return }
        let message = JSON.object([("event", .string("described"))] + description.eventFields)
        context.snapshot = context.snapshot.map(link)
        context.description = description.text
        if description.text == nil { context.descriptionProblem = description.error }
        let topic = "\(base)/rule/\(HomeAssistantDiscovery.id(fire.condition))"
        publisher.retain("\(topic)/fired", context.json.text())
        publisher.send([(base + "/events", message.text()), ("\(topic)/event", Self.event("described", context.json))])
    }

    /// A fire's clip: a `clip` message on the events topic, and a `clip` event on the rule's event
    /// entity with the clip's link on the page (its path when the page is off).
    private func clipped(_ clip: ClipOutcome) {
        guard let publisher = lock.withLock({ publisher }), let path = clip.path else { return }
        let url = page.map { $0 + "/clips/" + (path as NSString).lastPathComponent } ?? path
        let fields: [(String, JSON)] = [
            ("fire", .int(clip.fire)), ("rule", .int(clip.rule + 1)), ("condition", .string(clip.condition)), ("clip", .string(url)),
            ("duration_s", .number(clip.duration, places: 3)), ("before_s", .number(clip.before, places: 3)),
        ]
        let topic = "\(base)/rule/\(HomeAssistantDiscovery.id(clip.condition))"
        publisher.send([
            (base + "/events", JSON.object([("event", .string("clip"))] + clip.eventFields).text()),
            ("\(topic)/event", Self.event("clip", .object(fields))),
        ])
    }

    /// An event entity's message: `event_type` and the fire's fields as its attributes.
    static func event(_ type: String, _ fire: JSON) -> String {
        guard case .object(let fields) = fire else { return fire.text() }
        return JSON.object([("event_type", .string(type))] + fields).text()
    }

    /// A snapshot's path as a link on the page, when there is one (without the page's token, which
    /// stays out of the broker: a page with a token asks for it).
    private func link(_ path: String) -> String {
        guard let page else { return path }
        return page + "/snapshots/" + (path as NSString).lastPathComponent
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

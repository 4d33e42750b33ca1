import Foundation
import LookCore
import Rules

/// What comes from the broker: Home Assistant's status, the command topics (a rule's switch, a
/// count's reset, the camera's switch), each turned into a `RuleCommand` for the loop, and an
/// earlier run's retained configs (ghosts), taken away with their data topics.
extension MQTTOutput {
    /// A retained config under this instance's device, read when connecting: one of no rule in force
    /// is an earlier run's ghost, and goes with its data topics.
    func found(config topic: String) {
        guard let publisher = lock.withLock({ publisher }), let discovery else { return }
        let known = Set(lock.withLock { published + disabled }.flatMap { discovery.configs(for: $0).map(\.0) } + [discovery.watchingConfig.0])
        guard !known.contains(topic), let id = HomeAssistantDiscovery.ruleID(inConfig: topic) else { return }
        Log.shared.notice("mqtt: removing \(topic), left by an earlier run for a rule that is gone")
        publisher.retain(topic, [])
        // The data topics go only when no rule in force has this id (a rule whose entities changed keeps them).
        guard !lock.withLock({ published + disabled }).contains(where: { HomeAssistantDiscovery.id($0.condition) == id }) else { return }
        clearData(of: "\(base)/rule/\(id)", publisher)
    }

    /// A rule's data topics emptied, once, a moment after its configs: Home Assistant lets go of an
    /// entity a little after its empty config comes, and an empty attributes topic it still reads
    /// makes it log "Erroneous JSON". A rule that is in force again by then keeps its topics.
    func clearData(of ruleTopic: String, _ publisher: MQTTPublisher) {
        guard lock.withLock({ clearing.insert(ruleTopic).inserted }) else { return }
        clears.enter()
        clock.after(Self.clearDelay) { [weak self, clears] in
            defer { clears.leave() }
            guard let self else { return }
            let back = lock.withLock {
                clearing.remove(ruleTopic)
                return (published + disabled).contains { topic($0) == ruleTopic }
            }
            guard !back else { return }
            for suffix in ["state", "fired", "snapshot", "count", "switch"] { publisher.retain("\(ruleTopic)/\(suffix)", [], last: true) }
        }
    }

    /// A message on a command topic, or Home Assistant's status. A retained command is ignored (it
    /// would act again at every connection), as is anything malformed, with a line saying why.
    func message(_ topic: String, _ payload: [UInt8], retained: Bool) {
        let text = String(decoding: payload, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if let discovery, topic == discovery.prefix + "/status" {
            guard text == "online", !retained, let publisher = lock.withLock({ publisher }) else { return }
            // A flood of `online` (thousands in a second) sends everything again once, not each time.
            let now = clock.now()
            let due = lock.withLock { () -> Bool in
                guard now - lastResend >= Self.resendGap else { return false }
                lastResend = now
                return true
            }
            guard due else { return }
            Log.shared.notice("mqtt: Home Assistant is online again; discovery and states are sent again")
            publisher.resendRetained()
            return
        }
        let ignored = { [self] (why: String) in self.ignored("mqtt: ignored a message on \(topic): \(why)") }
        if topic == base + "/watching/set" {
            guard !retained else { return ignored("it is retained; commands are sent without retain") }
            guard ["ON", "OFF"].contains(text.uppercased()) else { return ignored("a switch takes ON or OFF, not \"\(Self.shown(text))\"") }
            lock.withLock { self.commands }?.post(.watch(on: text.uppercased() == "ON", by: "mqtt"))
            return
        }
        let parts = topic.dropFirst(base.count + "/rule/".count).split(separator: "/")
        guard topic.hasPrefix(base + "/rule/"), parts.count == 2 else { return ignored("not a command topic") }
        guard !retained else { return ignored("it is retained; commands are sent without retain") }
        let (rules, commands) = lock.withLock { (published + disabled, self.commands) }
        guard let rule = rules.first(where: { HomeAssistantDiscovery.id($0.condition) == parts[0] }) else {
            return ignored("no rule has the id \(Self.shown(String(parts[0])))")
        }
        switch (parts[1], text.uppercased()) {
        case ("set", "ON"), ("set", "OFF"): commands?.post(.switchRule(condition: rule.condition, on: text.uppercased() == "ON", by: "mqtt"))
        case ("reset", "PRESS"): commands?.post(.resetCount(condition: rule.condition, by: "mqtt"))
        case ("set", _): ignored("a switch takes ON or OFF, not \"\(Self.shown(text))\"")
        default: ignored("a reset takes PRESS, not \"\(Self.shown(text))\"")
        }
    }

    /// A payload as a log line shows it: its first 40 characters, control characters as `?`.
    static func shown(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(40).map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }

    /// A line for a message ignored: at most one each 10 s, the next one saying how many went unsaid
    /// (a publisher that floods the command topics does not flood the journal).
    func ignored(_ line: String) {
        let now = clock.now()
        let (say, unsaid) = lock.withLock { () -> (Bool, Int) in
            guard now - lastIgnoredLine >= 10 else {
                ignoredUnsaid += 1
                return (false, 0)
            }
            defer { (lastIgnoredLine, ignoredUnsaid) = (now, 0) }
            return (true, ignoredUnsaid)
        }
        if say { Log.shared.warning(line + (unsaid > 0 ? " (and \(unsaid) more ignored before it)" : "")) }
    }
}

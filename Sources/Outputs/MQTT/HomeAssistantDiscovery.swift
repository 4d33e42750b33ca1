import Foundation
import LookCore
import Rules

/// Home Assistant's MQTT discovery for one lookd instance: each rule is a `binary_sensor` (its
/// answer), an `image` (its last snapshot) and, for a count rule, a `sensor` (the count), all under
/// one device. Configs go to `<prefix>/<component>/<node>/<id>/config`, retained; an empty config
/// removes the entity.
struct HomeAssistantDiscovery: Sendable {
    let prefix: String
    let node: String
    let base: String

    /// A rule's id in topics and unique ids: its words as a slug, and a hash of them, so that two
    /// conditions never share an id and a rule keeps its id across restarts and reloads.
    static func id(_ condition: String) -> String {
        var slug = ""
        for ch in condition.lowercased().unicodeScalars {
            if ch.isASCII && (CharacterSet.alphanumerics.contains(ch)) {
                slug.unicodeScalars.append(ch)
            } else if !slug.hasSuffix("_") {
                slug += "_"
            }
        }
        slug = String(slug.trimmingCharacters(in: CharacterSet(charactersIn: "_")).prefix(40))
        var hash: UInt32 = 2_166_136_261
        for byte in condition.utf8 {
            hash ^= UInt32(byte)
            hash = hash &* 16_777_619
        }
        let tail = String(hash, radix: 16)
        return (slug.isEmpty ? "rule" : slug) + "_" + String(repeating: "0", count: 8 - tail.count) + tail
    }

    /// A name made safe for topics and ids: letters, digits, `-` and `_`.
    static func node(_ name: String) -> String {
        let kept = name.unicodeScalars.map { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") ? Character($0) : "_" }
        let text = String(kept)
        return text.isEmpty ? "lookd" : text
    }

    /// lookd's version (`sw_version`) and its page, when it serves one (`configuration_url`).
    var version = "lookd"
    var page: String?
    /// Whether fires have snapshots (`--snapshots`): only then is an image entity offered a rule.
    var snapshots = true

    var device: JSON {
        var fields: [(String, JSON)] = [
            ("identifiers", .strings(["lookd_\(node)"])), ("name", .string("lookd \(node)")), ("manufacturer", .string("lookd")),
            ("model", .string("lookd watch")), ("sw_version", .string(version)),
        ]
        if let page { fields.append(("configuration_url", .string(page))) }
        return .object(fields)
    }

    /// The configs of one rule's entities, (topic, JSON):
    /// - `binary_sensor`: its answer (`device_class:` in the rules file, else occupancy), with the
    ///   last fire as its attributes;
    /// - `event`: its fires (`fired`, then `described` when a description comes, and `clip` when its clip is written);
    /// - `image`: its last fire's snapshot, when fires have snapshots;
    /// - `switch`: whether it is watched (turned off, it is neither asked nor fired);
    /// - for a count rule, a `sensor` (its count) and a `button` that resets it.
    /// A rule written `enabled: false` has only its switch, which stays off.
    func configs(for rule: Rule) -> [(String, JSON)] {
        let id = Self.id(rule.condition)
        let topic = "\(base)/rule/\(id)"
        // Unique ids: `lookd_<node>_<id>` and a suffix a kind (those of earlier releases kept).
        func entity(_ component: String, _ objectID: String, _ unique: String, _ name: String, _ fields: [(String, JSON)]) -> (String, JSON) {
            (
                "\(prefix)/\(component)/\(node)/\(objectID)/config",
                .object(
                    [("name", .string(name)), ("unique_id", .string("lookd_\(node)_\(id)\(unique)"))] + fields + [
                        // Available while lookd runs and its source gives frames.
                        (
                            "availability",
                            .array([.object([("topic", .string(base + "/availability"))]), .object([("topic", .string(base + "/source"))])])
                        ),
                        ("availability_mode", .string("all")), ("device", device),
                    ])
            )
        }
        let watched = entity(
            "switch", id, "_switch", "\(rule.condition): watched",
            [
                ("command_topic", .string(topic + "/set")), ("state_topic", .string(topic + "/switch")), ("icon", .string("mdi:eye")),
                ("entity_category", .string("config")),
            ])
        guard rule.settings.enabled else { return [watched] }
        var list = [
            entity(
                "binary_sensor", id, "", rule.condition,
                [
                    ("state_topic", .string(topic + "/state")), ("payload_on", .string("on")), ("payload_off", .string("off")),
                    ("device_class", .string(rule.settings.deviceClass ?? "occupancy")),
                    // `unknown` (no answer yet, or an unreadable one) shows as unknown in Home Assistant.
                    ("value_template", .string("{{ value if value in ['on', 'off'] else 'None' }}")),
                    ("json_attributes_topic", .string(topic + "/fired")),
                ]),
            entity(
                "event", id, "_event", "\(rule.condition): fired",
                [("state_topic", .string(topic + "/event")), ("event_types", .strings(["fired", "described", "clip"]))]),
            watched,
        ]
        if snapshots {
            list.insert(
                entity(
                    "image", id, "_snapshot", "\(rule.condition): last fire",
                    [("image_topic", .string(topic + "/snapshot")), ("content_type", .string("image/jpeg"))]), at: 2)
        }
        if rule.reaction.isCount {
            list.append(
                entity(
                    "sensor", id + "_count", "_count", "\(rule.condition): count",
                    [("state_topic", .string(topic + "/count")), ("state_class", .string("total_increasing"))]))
            list.append(
                entity(
                    "button", id + "_reset", "_reset", "\(rule.condition): reset count",
                    [("command_topic", .string(topic + "/reset")), ("payload_press", .string("PRESS")), ("icon", .string("mdi:counter"))]))
        }
        return list
    }

    /// The device's own switch: whether the watch (a camera of several) asks its rules; off, it
    /// is paused. It is available while lookd runs, whether or not its source gives frames.
    var watchingConfig: (String, JSON) {
        (
            "\(prefix)/switch/\(node)/watching/config",
            .object([
                ("name", .string("watching")), ("unique_id", .string("lookd_\(node)_watching")), ("command_topic", .string(base + "/watching/set")),
                ("state_topic", .string(base + "/watching")), ("icon", .string("mdi:cctv")), ("availability_topic", .string(base + "/availability")),
                ("device", device),
            ])
        )
    }

    /// The rule id in a config topic of this device (`<prefix>/<component>/<node>/<id>[_count|_reset]/config`).
    static func ruleID(inConfig topic: String) -> String? {
        let parts = topic.split(separator: "/")
        guard parts.count >= 4, parts.last == "config" else { return nil }
        var id = String(parts[parts.count - 2])
        for suffix in ["_count", "_reset"] where id.hasSuffix(suffix) { id.removeLast(suffix.count) }
        return id
    }
}

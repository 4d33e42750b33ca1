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

    var device: JSON {
        .object([
            ("identifiers", .strings(["lookd_\(node)"])), ("name", .string("lookd \(node)")), ("manufacturer", .string("lookd")),
            ("model", .string("lookd watch")),
        ])
    }

    /// The configs of one rule's entities: (topic, JSON).
    func configs(for rule: Rule) -> [(String, JSON)] {
        let id = Self.id(rule.condition)
        let topic = "\(base)/rule/\(id)"
        let common: [(String, JSON)] = [
            ("availability_topic", .string(base + "/availability")), ("device", device),
        ]
        var list: [(String, JSON)] = [
            (
                "\(prefix)/binary_sensor/\(node)/\(id)/config",
                .object(
                    [
                        ("name", .string(rule.condition)), ("unique_id", .string("lookd_\(node)_\(id)")),
                        ("state_topic", .string(topic + "/state")), ("payload_on", .string("on")), ("payload_off", .string("off")),
                        // `unknown` (no answer yet, or an unreadable one) shows as unknown in Home Assistant.
                        ("value_template", .string("{{ value if value in ['on', 'off'] else 'None' }}")),
                        ("json_attributes_topic", .string(topic + "/fired")),
                    ] + common)
            ),
            (
                "\(prefix)/image/\(node)/\(id)/config",
                .object(
                    [
                        ("name", .string("\(rule.condition): last fire")), ("unique_id", .string("lookd_\(node)_\(id)_snapshot")),
                        ("image_topic", .string(topic + "/snapshot")), ("content_type", .string("image/jpeg")),
                    ] + common)
            ),
        ]
        if case .count = rule.reaction {
            list.append(
                (
                    "\(prefix)/sensor/\(node)/\(id)_count/config",
                    .object(
                        [
                            ("name", .string("\(rule.condition): count")), ("unique_id", .string("lookd_\(node)_\(id)_count")),
                            ("state_topic", .string(topic + "/count")), ("state_class", .string("total_increasing")),
                        ] + common)
                ))
        }
        return list
    }
}

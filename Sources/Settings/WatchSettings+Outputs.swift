import LookCore
import Outputs

extension WatchSettings {
    /// MQTT's settings and the instance's name, which MQTT's topics carry.
    static func mqtt(_ group: String) -> [Setting<WatchSetup>] {
        [
            Setting(
                .mqtt, "URL", group: group,
                help: "publish states, fires and snapshots to an MQTT broker: mqtt://[user@]host[:port] or mqtts:// (TLS); the password "
                    + "from LOOKD_MQTT_PASSWORD (docs/outputs.md: Home Assistant). Takes commands on lookd/NAME/rule/ID/set (ON, OFF) and .../reset (PRESS)",
                show: { $0.outputs.mqtt?.shown },
                apply: { (setup, text) throws(SettingProblem) in
                    switch MQTTBroker.parse(text) {
                    case .success(let broker): setup.outputs.mqtt = broker
                    case .failure(let problem):
                        throw SettingProblem(problem.text.hasPrefix("\(SettingName.mqtt) ") ? String(problem.text.dropFirst(7)) : problem.text)
                    }
                }),
            Setting(
                .mqttDiscovery, "P", group: group, help: "Home Assistant's discovery prefix, or off", needs: SettingNeed(.mqtt),
                show: { $0.outputs.mqttDiscovery ?? "off" },
                apply: { (setup, text) throws(SettingProblem) in
                    if text == "off" {
                        setup.outputs.mqttDiscovery = nil
                        return
                    }
                    // Brokers keep `$` topics for themselves and drop what clients publish there, without a word.
                    // A control character or NUL makes every publish fail; a topic is at most 65,535 bytes.
                    guard !text.isEmpty, !text.contains("#"), !text.contains("+"), !text.hasPrefix("$"), text.utf8.count <= 200,
                        !text.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) })
                    else { throw SettingProblem("is a topic prefix (homeassistant) or off, not \"\(text)\"") }
                    setup.outputs.mqttDiscovery = text
                }),
            .integer(
                .mqttQueue, \.outputs.mqttQueue, in: 1...100_000, group: group,
                help: "fire events kept while the broker is away (older ones are dropped)", needs: SettingNeed(.mqtt)),
            Setting(
                .name, "NAME", group: group, help: "this instance's name in MQTT topics and Home Assistant", defaultWords: "the host name",
                show: { $0.watch.name },
                apply: { (setup, text) throws(SettingProblem) in
                    guard OutputSettings.isName(text) else {
                        throw SettingProblem("is up to 64 letters, digits, - and _ (it names MQTT topics), not \"\(String(text.prefix(80)))\"")
                    }
                    (setup.watch.name, setup.outputs.name) = (text, text)
                }),
        ]
    }

    /// The page's settings.
    static func page(_ group: String) -> [Setting<WatchSetup>] {
        [
            Setting(
                .http, "ADDR:PORT", group: group,
                help:
                    "serve the live page, /api/status, /api/events and /metrics (Prometheus) there; the service's is 127.0.0.1:8470 (this machine only)",
                show: { $0.outputs.http.map { $0.host.contains(":") ? "[\($0.host)]:\($0.port)" : "\($0.host):\($0.port)" } },
                apply: { (setup, text) throws(SettingProblem) in
                    guard let listen = WebOutput.Listen.parse(text) else {
                        throw SettingProblem("is ADDRESS:PORT (127.0.0.1:8470, 0.0.0.0:8470, [::1]:8470), not \"\(text)\"")
                    }
                    setup.outputs.http = listen
                }),
            Setting(
                .httpToken, "T", group: group,
                help: "the token every request must carry (?token=T or Authorization: Bearer T); needed when ADDR is not loopback; "
                    + "LOOKD_HTTP_TOKEN in the environment does the same, and keeps it out of the process list",
                needs: SettingNeed(.http), show: { $0.httpToken == nil ? nil : Secrets.mask }, apply: { setup, text in setup.httpToken = text }),
            .text(
                .httpTokenFile, \.httpTokenFile, "FILE", group: group, help: "the page's token: the first line of FILE",
                needs: SettingNeed(.http)),
        ]
    }
}

import Foundation
import LookCore

/// Where `--mqtt` points: `mqtt://[user@]host[:port]` (1883), or `mqtts://` for TLS (8883). The
/// password comes from the environment (`LOOKD_MQTT_PASSWORD`, the service's env file), never the
/// command line, where `ps` shows it.
public struct MQTTBroker: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var tls: Bool
    public var user: String?
    public var password: String?

    public static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<MQTTBroker, MQTTURLError>
    {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(), ["mqtt", "mqtts"].contains(scheme) else {
            return .failure(MQTTURLError(text: "\(SettingName.mqtt) takes mqtt://[user@]host[:port] or mqtts://…, not \"\(text)\""))
        }
        // An IPv6 literal comes with its brackets, which a socket's address has not.
        guard let bracketed = parts.host, !bracketed.isEmpty else { return .failure(MQTTURLError(text: "\(SettingName.mqtt) \(text) has no host")) }
        let host = bracketed.hasPrefix("[") && bracketed.hasSuffix("]") ? String(bracketed.dropFirst().dropLast()) : bracketed
        if parts.password != nil {
            return .failure(MQTTURLError(text: "\(SettingName.mqtt): put the password in LOOKD_MQTT_PASSWORD (the env file), not in the URL"))
        }
        if !parts.path.isEmpty && parts.path != "/" { return .failure(MQTTURLError(text: "\(SettingName.mqtt) \(text): a broker URL has no path")) }
        let tls = scheme == "mqtts"
        let port = parts.port ?? (tls ? 8883 : 1883)
        guard (1...65535).contains(port) else { return .failure(MQTTURLError(text: "\(SettingName.mqtt) \(text): port \(port) is out of range")) }
        let password = environment["LOOKD_MQTT_PASSWORD"].flatMap { $0.isEmpty ? nil : $0 }
        return .success(MQTTBroker(host: host, port: port, tls: tls, user: parts.user, password: password))
    }

    /// `host:port`, for messages.
    public var shown: String { "\(tls ? "mqtts" : "mqtt")://\(user.map { "\($0)@" } ?? "")\(host.contains(":") ? "[\(host)]" : host):\(port)" }
}

public struct MQTTURLError: Error, Sendable, CustomStringConvertible {
    public let text: String
    public var description: String { text }
}

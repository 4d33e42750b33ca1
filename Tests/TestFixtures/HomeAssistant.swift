import Foundation
import TestSupport

/// A real Home Assistant core (the pinned release tools/install-home-assistant puts in
/// .deps/home-assistant) on a free loopback port, with an MQTT config entry against the test's
/// broker and a long-lived access token the fixture makes (Tests/Fixtures/home_assistant.py). The
/// test asserts through Home Assistant's own REST API, with curl.
public final class HomeAssistant {
    public let port: Int
    public let folder: URL
    public let token: String
    private var process: FixtureProcess?

    public static let venv = Fixtures.root.appendingPathComponent(".deps/home-assistant")
    /// Whether the pinned release is installed (tools/test installs it).
    public static var installed: Bool { FileManager.default.fileExists(atPath: venv.appendingPathComponent("bin/hass").path) }

    public init(mqttPort: Int) throws {
        folder = try Fixtures.scratch("home-assistant")
        port = LoopbackPort.free()
        let prepare = try Subprocess.run(
            Self.venv.appendingPathComponent("bin/python").path,
            [Fixtures.root.appendingPathComponent("Tests/Fixtures/home_assistant.py").path, folder.path, String(port), String(mqttPort)])
        guard prepare.status == 0 else { throw Self.failure("the configuration could not be made: \(prepare.stderr)") }
        token = prepare.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        process = try FixtureProcess(
            Self.venv.appendingPathComponent("bin/hass").path, ["-c", folder.path, "--skip-pip"])
        if Poll.until(within: 120, every: 0.2, { (try? get("/api/"))?.contains("API running") == true }) { return }
        throw Self.failure("Home Assistant did not answer on \(port) within 120 s; its log: \(log.suffix(2000))")
    }

    deinit { stop() }

    /// Stops Home Assistant (SIGTERM: it writes its state and the recorder's database).
    public func stop() {
        process?.stop()
        process = nil
    }

    public var url: String { "http://127.0.0.1:\(port)" }

    /// Home Assistant's own log.
    public var log: String { (try? String(contentsOf: folder.appendingPathComponent("home-assistant.log"), encoding: .utf8)) ?? "" }

    /// A REST call's body (curl: the token, and JSON for a POST); throws on a status of 400 or more.
    @discardableResult
    public func call(_ path: String, post body: String? = nil, status: UnsafeMutablePointer<Int>? = nil) throws -> Data {
        let file = folder.appendingPathComponent("answer-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        var arguments = ["-s", "-o", file, "-w", "%{http_code}", "-H", "Authorization: Bearer \(token)", url + path]
        if let body { arguments += ["-H", "Content-Type: application/json", "-X", "POST", "--data-binary", body] }
        let r = try Subprocess.run("/usr/bin/curl", arguments)
        let code = Int(r.stdout.trimmingCharacters(in: .whitespaces)) ?? 0
        status?.pointee = code
        let data = FileManager.default.contents(atPath: file) ?? Data()
        if status == nil && (code == 0 || code >= 400) {
            throw Self.failure("\(body == nil ? "GET" : "POST") \(path): HTTP \(code): \(String(decoding: data, as: UTF8.self).prefix(300))")
        }
        return data
    }

    public func get(_ path: String) throws -> String { String(decoding: try call(path), as: UTF8.self) }

    /// An entity's state object, nil when Home Assistant has no such entity.
    public func state(_ entity: String) throws -> [String: Any]? {
        var code = 0
        let data = try call("/api/states/\(entity)", status: &code)
        guard code == 200 else { return nil }
        return try JSONSerialization.jsonObject(with: data) as? [String: Any]
    }

    /// A service call (`switch/turn_off`) on one entity.
    public func service(_ name: String, _ entity: String) throws {
        try call("/api/services/\(name)", post: "{\"entity_id\": \"\(entity)\"}")
    }

    /// A template rendered by Home Assistant (how the test reads the device registry over REST).
    public func template(_ text: String) throws -> String {
        let body = try JSONSerialization.data(withJSONObject: ["template": text])
        return String(decoding: try call("/api/template", post: String(decoding: body, as: UTF8.self)), as: UTF8.self)
    }

    /// The recorded states of `entity` since `start`, oldest first (with their attributes).
    public func history(_ entity: String, since start: Date) throws -> [[String: Any]] {
        let f = ISO8601DateFormatter()
        let when = f.string(from: start.addingTimeInterval(-1)).addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let data = try call("/api/history/period/\(when)?filter_entity_id=\(entity)&significant_changes_only=0")
        let lists = try JSONSerialization.jsonObject(with: data) as? [[[String: Any]]] ?? []
        return lists.first ?? []
    }

    private static func failure(_ text: String) -> NSError {
        NSError(domain: "HomeAssistant", code: 1, userInfo: [NSLocalizedDescriptionKey: text])
    }
}

import Foundation
import TestSupport

/// A real mosquitto broker on a free loopback port, for the MQTT tests; it keeps its state on disk
/// (`persistence`), so a restart on the same port brings back retained messages and the queued
/// messages of persistent subscribers, as a broker that was restarted does.
public final class Mosquitto {
    public let port: Int
    public let folder: URL
    private var process: FixtureProcess?

    public init() throws {
        folder = try Fixtures.scratch("mosquitto")
        port = LoopbackPort.free()
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous true
            persistence true
            persistence_location \(folder.path)/
            max_queued_messages 100000
            message_size_limit 0
            log_dest file \(folder.path)/mosquitto.log
            log_type subscribe
            connection_messages false

            """
        try config.write(to: folder.appendingPathComponent("mosquitto.conf"), atomically: true, encoding: .utf8)
        // Started as root, mosquitto runs as its own user, which writes its log here.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: folder.path)
        try start()
    }

    deinit { stop() }

    /// Starts the broker and waits until it takes connections.
    public func start() throws {
        process = try FixtureProcess("/usr/sbin/mosquitto", ["-c", folder.appendingPathComponent("mosquitto.conf").path])
        if Poll.until(within: 10, { LoopbackPort.accepts(port) }) { return }
        throw NSError(domain: "Mosquitto", code: 1, userInfo: [NSLocalizedDescriptionKey: "mosquitto did not start on \(port)"])
    }

    /// Stops the broker (SIGTERM: it saves its state).
    public func stop() {
        process?.stop() // SIGTERM
        process = nil
    }

    public var url: String { "mqtt://127.0.0.1:\(port)" }

    /// The subscriptions to `topic` made since the broker first started: its log says each
    /// (`log_type subscribe`).
    public func subscriptions(to topic: String) -> Int {
        let log = (try? String(contentsOf: folder.appendingPathComponent("mosquitto.log"), encoding: .utf8)) ?? ""
        return log.split(separator: "\n").filter { $0.hasSuffix(" " + topic) }.count
    }

    /// Waits (at most 10 s) until `count` subscriptions to `topic` have been made, so a subscriber
    /// started by a test is in place before anything is published. Whether they were.
    @discardableResult
    public func waitForSubscription(to topic: String, count: Int = 1) -> Bool {
        Poll.until(within: 10, every: 0.01) { subscriptions(to: topic) >= count }
    }

    /// The retained payload of `topic` (nil when none comes within `seconds`).
    public func retained(_ topic: String, seconds: Int = 2) throws -> Data? {
        let file = folder.appendingPathComponent("read-\(UUID().uuidString.prefix(8))").path
        let r = try Subprocess.run(
            "/bin/sh", ["-c", "mosquitto_sub -p \(port) -h 127.0.0.1 -t \"$1\" -C 1 -W \(seconds) -N --retained-only > \"$2\"", "sh", topic, file])
        defer { try? FileManager.default.removeItem(atPath: file) }
        guard r.status == 0 else { return nil }
        return FileManager.default.contents(atPath: file)
    }

    public func retainedText(_ topic: String) throws -> String? { try retained(topic).map { String(decoding: $0, as: UTF8.self) } }
}

import Foundation

/// Lines gathered from any thread (a logger's output, say).
public final class CollectedLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    public init() {}

    public func add(_ line: String) { lock.withLock { lines.append(line) } }
    public var all: [String] { lock.withLock { lines } }
}

/// lookd's JSON Lines event log, read back.
public enum EventLogFile {
    public struct BadLine: Error, CustomStringConvertible {
        public let line: String
        public var description: String { "not an event (a JSON object with t and event): \(line)" }
    }

    /// Every line of the log, parsed; throws on a line that is not a whole JSON object with `t` and `event`.
    public static func read(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            guard let event = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                event["t"] is String, event["event"] is String
            else { throw BadLine(line: String(line)) }
            return event
        }
    }

    /// Waits (up to 30 s) until the log at `path` has `count` lines containing `text`.
    public static func waitForLines(_ path: String, containing text: String, count: Int = 1) {
        Poll.until(within: 30, every: 0.01) {
            let content = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
            return content.split(separator: "\n").filter { $0.contains(text) }.count >= count
        }
    }
}

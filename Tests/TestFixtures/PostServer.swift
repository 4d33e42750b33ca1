import Foundation
import TestSupport

/// The loopback HTTP server of the post: tests (Tests/Fixtures/post_server.py): `/ok`, `/fail/N`,
/// `/status/CODE`, `/hang`; it keeps each request it got.
public final class PostServer {
    public struct Request {
        public let path: String
        public let headers: [String: String]
        public let body: Data
        public let time: Double
    }

    public let port: Int
    private let log: String
    private let process: FixtureProcess

    public init() throws {
        log = try Fixtures.scratch("post").appendingPathComponent("requests.jsonl").path
        (process, port) = try ScriptServer.start("post_server.py", [log])
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public var requests: [Request] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return Request(
                path: o["path"] as? String ?? "", headers: o["headers"] as? [String: String] ?? [:],
                body: Data(base64Encoded: o["body"] as? String ?? "") ?? Data(), time: o["t"] as? Double ?? 0)
        }
    }
}

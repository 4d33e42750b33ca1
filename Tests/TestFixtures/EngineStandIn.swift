import Foundation
import TestSupport

/// The remote engine's stand-in server (Tests/Fixtures/engine_server.py), for the faults llama-server
/// cannot be made to show: 500s, hangs before and during the answer, a closed connection, garbage,
/// a wrong model name.
public final class EngineStandIn {
    public let folder: URL
    public let port: Int
    private let process: FixtureProcess

    public init() throws {
        folder = try Fixtures.scratch("engine")
        (process, port) = try ScriptServer.start("engine_server.py", [folder.path])
    }

    public var url: String { "http://127.0.0.1:\(port)/v1" }

    /// How it answers from now on: ok, 500, hang-first, hang-mid, close, garbage.
    public func answer(_ mode: String, text: String? = nil) throws {
        try mode.write(to: folder.appendingPathComponent("MODE"), atomically: true, encoding: .utf8)
        if let text { try text.write(to: folder.appendingPathComponent("ANSWER"), atomically: true, encoding: .utf8) }
    }

    /// The requests it got, and a fresh count.
    public var requests: Int { Int((try? String(contentsOf: folder.appendingPathComponent("COUNT"), encoding: .utf8)) ?? "0") ?? 0 }
    public func resetCount() throws { try "0".write(to: folder.appendingPathComponent("COUNT"), atomically: true, encoding: .utf8) }
}

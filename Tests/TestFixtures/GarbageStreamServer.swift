import Foundation
import TestSupport

/// A loopback HTTP stream that sends a real MPEG-TS start and then random bytes without end
/// (Tests/Fixtures/garbage_stream_server.py): a live stream turned to garbage.
public final class GarbageStreamServer {
    public let port: Int
    private let process: FixtureProcess

    /// `start`: the MPEG-TS file sent before the garbage.
    public init(start: String) throws {
        (process, port) = try ScriptServer.start("garbage_stream_server.py", [start])
    }

    public var url: String { "http://127.0.0.1:\(port)/" }
}

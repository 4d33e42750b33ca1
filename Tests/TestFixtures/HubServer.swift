import Foundation
import TestSupport

/// The local Hub stand-in (Tests/Fixtures/hub_server.py) serving a folder of model files.
public final class HubServer {
    public let folder: URL
    public let port: Int
    private let process: FixtureProcess

    /// Serves `files` (name → source path) with the server's `options` (`--cut N`, `--wrong-sha`, …).
    public init(files: [String: String], options: [String] = []) throws {
        folder = try Fixtures.scratch("hub")
        for (name, source) in files {
            try FileManager.default.copyItem(atPath: source, toPath: folder.appendingPathComponent(name).path)
        }
        (process, port) = try ScriptServer.start("hub_server.py", [folder.path] + options)
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The file requests it answered: "name range" per line (`-` for no Range).
    public var requests: [String] {
        let text = (try? String(contentsOfFile: folder.path + ".requests", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}

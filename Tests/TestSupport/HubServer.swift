import Foundation

/// The local Hub stand-in (Tests/Fixtures/hub_server.py) serving a folder of model files.
public final class HubServer {
    public let folder: URL
    public private(set) var port = 0
    private let process = Process()

    /// Serves `files` (name → source path) with the server's `options` (`--cut N`, `--wrong-sha`, …).
    public init(files: [String: String], options: [String] = []) throws {
        folder = try Fixtures.scratch("hub")
        for (name, source) in files {
            try FileManager.default.copyItem(atPath: source, toPath: folder.appendingPathComponent(name).path)
        }
        let out = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Fixtures.root.appendingPathComponent("Tests/Fixtures/hub_server.py").path, folder.path] + options
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = out.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }

    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// The file requests it answered: "name range" per line (`-` for no Range).
    public var requests: [String] {
        let text = (try? String(contentsOfFile: folder.path + ".requests", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init)
    }
}

import Foundation
import TestSupport

/// A Python server of the tests' own (Tests/Fixtures/*.py) that prints its loopback port on its
/// first line: started, and its port read.
enum ScriptServer {
    static func start(_ script: String, _ arguments: [String]) throws -> (process: FixtureProcess, port: Int) {
        let out = Pipe()
        let process = try FixtureProcess(
            "/usr/bin/env", ["python3", Fixtures.root.appendingPathComponent("Tests/Fixtures/\(script)").path] + arguments, stdout: out)
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let more = out.fileHandleForReading.availableData
            if more.isEmpty { break }
            line.append(more)
        }
        return (process, Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0)
    }
}

import Foundation

/// Runs a program to its end and keeps what it wrote.
public struct Subprocess {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// Runs `path` with `arguments`; `environment` entries are added to this process's environment.
    /// `onStart` gets the running process (to signal it, say); `directory` is its working folder.
    @discardableResult
    public static func run(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], directory: String? = nil,
        onStart: ((Process) -> Void)? = nil
    ) throws -> Subprocess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        let outData = Collected(), errData = Collected()
        out.fileHandleForReading.readabilityHandler = { outData.append($0.availableData) }
        err.fileHandleForReading.readabilityHandler = { errData.append($0.availableData) }
        try process.run()
        onStart?(process)
        process.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        err.fileHandleForReading.readabilityHandler = nil
        outData.append(out.fileHandleForReading.readDataToEndOfFile())
        errData.append(err.fileHandleForReading.readDataToEndOfFile())
        return Subprocess(status: process.terminationStatus, stdout: outData.text, stderr: errData.text)
    }

    /// Runs a shell command line (for ffmpeg and friends); throws when it fails.
    @discardableResult
    public static func shell(_ command: String) throws -> Subprocess {
        let result = try run("/bin/sh", ["-c", command])
        guard result.status == 0 else {
            throw NSError(
                domain: "Subprocess", code: Int(result.status),
                userInfo: [NSLocalizedDescriptionKey: "\(command) failed: \(result.stderr)"])
        }
        return result
    }
}

/// Bytes gathered from a pipe on another thread.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

import Foundation
import TestSupport

/// One program a test starts (mosquitto, llama-server, a Python server of the tests' own): owned
/// once, from a start that succeeded to its stop. A program that never started is never signalled
/// (`Process.terminate()` on one traps), and one still running when its owner goes is stopped.
public final class FixtureProcess: @unchecked Sendable {
    public let process = Process()
    private let lock = NSLock()
    private var running = false

    /// Starts `executable` with `arguments`; standard input is empty, the outputs go where given
    /// (nowhere by default). Throws when it cannot be started.
    public init(_ executable: String, _ arguments: [String], stdout: Any? = nil, stderr: Any? = nil) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? FileHandle.nullDevice
        process.standardError = stderr ?? FileHandle.nullDevice
        try process.run()
        running = true
    }

    deinit { stop() }

    public var pid: Int32 { process.processIdentifier }
    public var isRunning: Bool { lock.withLock { running } && process.isRunning }

    /// Sends `signal` (SIGTERM by default) and waits for the program to end; does nothing once it has.
    public func stop(_ signal: Int32 = SIGTERM) {
        let was = lock.withLock { () -> Bool in
            defer { running = false }
            return running
        }
        guard was else { return }
        if process.isRunning { kill(process.processIdentifier, signal) }
        process.waitUntilExit()
    }
}
